//! The fixture harness: compiles every Java fixture under `fixtures/src` with the real javac,
//! scans the classes, and compares the findings with the markers written in the sources.
//!
//! Markers are trailing `//` comments on the line of the use a finding points at:
//!
//! ```text
//! shared.field = tmp; // expect: stale-value(age=1)
//! tmp = tmp + val;    // expect: block-local-atomicity
//! x = y;              // expect: stale-value, block-local-atomicity
//! fdata = f(value);   // known-fp: block-local-atomicity
//! if (c.get() < MAX)  // expect: block-local-atomicity; known-fn: stale-value
//! ```
//!
//! - `expect: RULE[(age=N)]`: a finding of RULE has its primary line here (and, with `age=N`,
//!   one such finding has age N).
//! - `known-fp: RULE`: a correct program the analysis is known to flag; the finding must be there
//!   (so a change in precision shows) and is listed separately.
//! - `known-fn: RULE`: a real bug the analysis is known to miss; the finding must be absent.
//!
//! A finding on a line without a marker for its rule fails, and so does a marker without its
//! finding. Markers are parsed strictly: an unknown rule, an unknown kind, a marker that does not
//! start its comment or sits on a line without code fails the test.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::sync::OnceLock;

use common::{Finding, Report, RULES};
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Markers
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Expect,
    KnownFp,
    KnownFn,
}

impl Kind {
    fn parse(word: &str) -> Option<Kind> {
        match word {
            "expect" => Some(Kind::Expect),
            "known-fp" => Some(Kind::KnownFp),
            "known-fn" => Some(Kind::KnownFn),
            _ => None,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Kind::Expect => "expect",
            Kind::KnownFp => "known-fp",
            Kind::KnownFn => "known-fn",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Marker {
    line: u32,
    kind: Kind,
    rule: String,
    age: Option<u32>,
}

/// Whether a `//` comment body is a marker attempt: its first word is `expect...` or
/// `known-...`/`known_...` (so prose such as "Known false positive of ..." is not).
fn looks_like_marker(body: &str) -> bool {
    let word: String = body
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != ':' && *c != '(')
        .collect::<String>()
        .to_ascii_lowercase();
    word.starts_with("expect") || word.starts_with("known-") || word.starts_with("known_")
}

/// Marker keywords followed by a colon, anywhere in `text`.
fn contains_marker_keyword(text: &str) -> bool {
    ["expect", "known-fp", "known-fn"].iter().any(|kw| {
        text.match_indices(kw)
            .any(|(i, _)| text[i + kw.len()..].trim_start().starts_with(':'))
    })
}

/// Splits one source line into (code, line comment body), tracking block comments across lines
/// and skipping string and char literals.
fn split_line<'a>(line: &'a str, in_block_comment: &mut bool) -> (String, Option<&'a str>) {
    let bytes = line.as_bytes();
    let mut code = String::new();
    let mut i = 0;
    while i < bytes.len() {
        if *in_block_comment {
            if line[i..].starts_with("*/") {
                *in_block_comment = false;
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        let rest = &line[i..];
        if rest.starts_with("//") {
            return (code, Some(&line[i + 2..]));
        }
        if rest.starts_with("/*") {
            *in_block_comment = true;
            i += 2;
            continue;
        }
        let c = bytes[i];
        if c == b'"' || c == b'\'' {
            // A literal: copy it to the code and skip to its end (escapes honoured).
            let start = i;
            i += 1;
            while i < bytes.len() && bytes[i] != c {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
            code.push_str(&line[start..i]);
            continue;
        }
        let ch = rest.chars().next().unwrap();
        code.push(ch);
        i += ch.len_utf8();
    }
    (code, None)
}

/// Parses the markers of one source file. Every malformed marker is an error
/// (`file:line: why`).
fn parse_markers(file: &str, source: &str) -> Result<Vec<Marker>, Vec<String>> {
    let mut markers = Vec::new();
    let mut errors = Vec::new();
    let mut in_block_comment = false;
    for (index, line) in source.lines().enumerate() {
        let number = index as u32 + 1;
        let (code, comment) = split_line(line, &mut in_block_comment);
        let Some(comment) = comment.filter(|c| looks_like_marker(c.trim())) else {
            // Not a marker comment: marker syntax anywhere on the line is a mistake.
            if contains_marker_keyword(line) {
                errors.push(format!(
                    "{file}:{number}: marker text outside a marker comment; write \
                     `// expect|known-fp|known-fn: rule, ...` at the end of the line"
                ));
            }
            continue;
        };
        let body = comment.trim();
        let before = &line[..line.len() - comment.len() - 2];
        if contains_marker_keyword(before) {
            errors.push(format!(
                "{file}:{number}: marker text before the marker comment"
            ));
        } else if code.trim().is_empty() {
            errors.push(format!(
                "{file}:{number}: marker on a line without code; put it on the line of the use"
            ));
        } else {
            match parse_marker_comment(body, number) {
                Ok(mut parsed) => markers.append(&mut parsed),
                Err(why) => errors.push(format!(
                    "{file}:{number}: malformed marker `// {body}`: {why}"
                )),
            }
        }
    }
    if errors.is_empty() {
        Ok(markers)
    } else {
        Err(errors)
    }
}

/// `kind: spec, spec; kind: spec` where spec is `rule` or `rule(age=N)`.
fn parse_marker_comment(body: &str, line: u32) -> Result<Vec<Marker>, String> {
    let mut markers: Vec<Marker> = Vec::new();
    for clause in body.split(';') {
        let (kind_word, specs) = clause
            .split_once(':')
            .ok_or_else(|| format!("clause `{}` has no `kind:`", clause.trim()))?;
        let kind = Kind::parse(kind_word.trim()).ok_or_else(|| {
            format!(
                "unknown marker kind `{}` (expect, known-fp, known-fn)",
                kind_word.trim()
            )
        })?;
        if specs.trim().is_empty() {
            return Err(format!("`{}:` names no rule", kind.name()));
        }
        for spec in specs.split(',') {
            let spec = spec.trim();
            let (rule, age) = match spec.split_once('(') {
                None => (spec, None),
                Some((rule, rest)) => {
                    let inner = rest
                        .strip_suffix(')')
                        .ok_or_else(|| format!("`{spec}`: missing `)`"))?;
                    let value = inner
                        .trim()
                        .strip_prefix("age")
                        .map(str::trim_start)
                        .and_then(|v| v.strip_prefix('='))
                        .ok_or_else(|| format!("`{spec}`: only `(age=N)` is allowed"))?;
                    let age: u32 = value
                        .trim()
                        .parse()
                        .map_err(|_| format!("`{spec}`: age must be a positive integer"))?;
                    if age == 0 {
                        return Err(format!("`{spec}`: age must be a positive integer"));
                    }
                    if kind != Kind::Expect {
                        return Err(format!("`{spec}`: an age can only be expected (`expect:`)"));
                    }
                    (rule.trim(), Some(age))
                }
            };
            if !RULES.contains(&rule) {
                return Err(format!(
                    "unknown rule id `{rule}` (known: {})",
                    RULES.join(", ")
                ));
            }
            if markers.iter().any(|m| m.rule == rule) {
                return Err(format!("rule `{rule}` is named twice on one line"));
            }
            markers.push(Marker {
                line,
                kind,
                rule: rule.to_string(),
                age,
            });
        }
    }
    Ok(markers)
}

/// All markers of all fixture sources, by file (relative to fixtures/src, `/`-separated).
fn all_markers() -> BTreeMap<String, Vec<Marker>> {
    let src = common::fixtures_src();
    let mut all = BTreeMap::new();
    let mut errors = Vec::new();
    for path in common::files_with_ext(&src, "java") {
        let rel = common::rel_slash(&path, &src);
        let text = fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        if let Err(e) = check_package(&rel, &text) {
            errors.push(e);
        }
        match parse_markers(&rel, &text) {
            Ok(markers) => {
                all.insert(rel, markers);
            }
            Err(mut e) => errors.append(&mut e),
        }
    }
    assert!(
        errors.is_empty(),
        "fixture sources are malformed:\n  {}",
        errors.join("\n  ")
    );
    all
}

/// The `package` declaration must match the directory (the scanner derives the source path from
/// the package and the SourceFile attribute).
fn check_package(rel: &str, text: &str) -> Result<(), String> {
    let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let expected = dir.replace('/', ".");
    let declared = text
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("package "))
        .map(|p| p.trim_end_matches(';').trim().to_string())
        .unwrap_or_default();
    if declared != expected {
        return Err(format!(
            "{rel}: declares package `{declared}`, expected `{expected}`"
        ));
    }
    if !expected.starts_with("fixtures") {
        return Err(format!("{rel}: fixtures live in packages fixtures.<topic>"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Scanning the fixtures (once per process)
// ---------------------------------------------------------------------------------------------

struct Scan {
    run: common::Run,
    report: Report,
}

fn scan_args(format: &str) -> Vec<std::ffi::OsString> {
    vec![
        "scan".into(),
        common::fixture_classes().into(),
        "--format".into(),
        format.into(),
        "--source-root".into(),
        common::fixtures_src().into(),
        // Every rule: the fixtures pin the findings of the rules that are off by default too.
        "--rules".into(),
        "all".into(),
    ]
}

fn json_scan() -> &'static Scan {
    static SCAN: OnceLock<Scan> = OnceLock::new();
    SCAN.get_or_init(|| {
        let run = common::stalecheck(scan_args("json"));
        assert!(
            matches!(run.code, Some(0) | Some(1)),
            "scanning the fixtures must exit 0 or 1\n{}",
            run.describe()
        );
        let report = run.report();
        Scan { run, report }
    })
}

fn sarif_scan() -> &'static (common::Run, Value) {
    static SCAN: OnceLock<(common::Run, Value)> = OnceLock::new();
    SCAN.get_or_init(|| {
        let run = common::stalecheck(scan_args("sarif"));
        assert!(
            matches!(run.code, Some(0) | Some(1)),
            "scanning the fixtures must exit 0 or 1\n{}",
            run.describe()
        );
        let value = run.stdout_json();
        (run, value)
    })
}

// ---------------------------------------------------------------------------------------------
// Checking one finding's shape
// ---------------------------------------------------------------------------------------------

/// Structural problems of one finding (empty when it is well formed).
fn finding_shape_errors(f: &Finding, classes: &BTreeSet<String>) -> Vec<String> {
    let mut errors = Vec::new();
    let here = f.short();
    match common::rule_level(&f.rule) {
        None => errors.push(format!("unknown rule: {here}")),
        Some(level) if !common::level_ok(&f.rule, &f.level, f.evidence.as_deref()) => errors.push(
            format!("level is {:?}, expected {level:?}: {here}", f.level),
        ),
        _ => {}
    }
    if f.message.trim().is_empty() {
        errors.push(format!("empty message: {here}"));
    }
    if !classes.contains(&f.class) {
        errors.push(format!(
            "class {:?} is not a compiled fixture class: {here}",
            f.class
        ));
    }
    if f.method.is_empty() || !f.descriptor.starts_with('(') {
        errors.push(format!("bad method or descriptor: {here}"));
    }
    match &f.file {
        None => errors.push(format!("no file: {here}")),
        Some(file) => {
            if Path::new(file).is_absolute() || file.contains('\\') {
                errors.push(format!(
                    "file must be relative to --source-root with `/` separators: {here}"
                ));
            } else if !common::fixtures_src().join(file).is_file() {
                errors.push(format!("file does not exist under fixtures/src: {here}"));
            }
            // The source of a class is a file in its package directory (its `SourceFile`: the
            // top-level class's own file, or the file it shares with a public class).
            let package = f
                .class
                .rsplit_once('.')
                .map_or("", |(p, _)| p)
                .replace('.', "/");
            let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
            if dir != package {
                errors.push(format!(
                    "file should be in {package:?} for class {}: {here}",
                    f.class
                ));
            }
        }
    }
    if f.line.is_none_or(|l| l == 0) {
        errors.push(format!("no primary line: {here}"));
    }
    if f.rule == "stale-value" && f.age.is_none_or(|a| a == 0) {
        errors.push(format!(
            "a stale value has an age of at least 1, got {:?}: {here}",
            f.age
        ));
    }
    if f.rule == "method-consistency" {
        // Two sections that do not nest, each a lock acquisition (then maybe an access) or an
        // access outside any lock, then the concurrent writer's access; against a concurrent
        // thread's view, also the method's other section.
        let locks = f.steps.iter().filter(|s| s.kind == "lock").count();
        let most = if f.evidence.as_deref() == Some("foreign-view") {
            3
        } else {
            2
        };
        if locks > most
            || f.steps.len() < 3
            || f.steps
                .iter()
                .any(|s| s.kind != "lock" && s.kind != "access")
        {
            let kinds: Vec<&str> = f.steps.iter().map(|s| s.kind.as_str()).collect();
            errors.push(format!(
                "steps must be two sections (lock and access, or an unlocked access) and the writer, got {kinds:?}: {here}"
            ));
        }
        if f.threads.is_empty() {
            errors.push(format!(
                "a method-consistency finding names its threads: {here}"
            ));
        }
        return errors;
    }
    if f.rule == "high-level-data-race" {
        // In execution order: the method's first read (or write), the other thread's maximal
        // view (lock) in between, the second read and the use that combines them (at the
        // primary line), or the second write.
        let kinds: Vec<&str> = f.steps.iter().map(|s| s.kind.as_str()).collect();
        let ok = matches!(
            kinds.as_slice(),
            ["read", "lock", "read", "use"] | ["access", "lock", "access"]
        );
        if !ok {
            errors.push(format!(
                "steps must be [read, lock, read, use] or [access, lock, access], got {kinds:?}: {here}"
            ));
        } else if kinds[3..].contains(&"use") && f.steps.last().and_then(|s| s.line) != f.line {
            errors.push(format!(
                "the combining use is at line {:?}, the finding at {:?}: {here}",
                f.steps.last().and_then(|s| s.line),
                f.line
            ));
        }
        if f.threads.is_empty() {
            errors.push(format!(
                "a high-level-data-race finding names its threads: {here}"
            ));
        }
        if f.steps.iter().any(|s| s.line.is_none_or(|l| l == 0)) {
            errors.push(format!("every step needs a line: {here}"));
        }
        return errors;
    }
    if f.rule == "causal-stale-value" && f.threads.is_empty() {
        errors.push(format!(
            "a causal-stale-value finding names its threads: {here}"
        ));
    }
    // Steps in execution order: read(s), then stale step(s), then use(s), the last use at the
    // primary line. When the boundary is the first read's own call (a call that is a critical
    // section of its own: the stale step right after the first read, on its line), the other
    // reads of that critical section come after it.
    let order = |k: &str| match k {
        "read" => Some(0),
        "stale" => Some(1),
        "use" => Some(2),
        _ => None,
    };
    let kinds: Vec<&str> = f.steps.iter().map(|s| s.kind.as_str()).collect();
    let own_call = kinds.len() > 2
        && kinds[0] == "read"
        && kinds[1] == "stale"
        && f.steps[0].line == f.steps[1].line;
    let ranks: Vec<Option<u8>> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| {
            if own_call && i == 1 {
                Some(0)
            } else {
                order(k)
            }
        })
        .collect();
    let well_ordered = ranks.iter().all(Option::is_some)
        && ranks.windows(2).all(|w| w[0] <= w[1])
        && [0, 1, 2]
            .iter()
            .all(|r| ranks.contains(&Some(*r)) || (own_call && *r == 1));
    if !well_ordered {
        errors.push(format!(
            "steps must be read, stale, use in that order, got {kinds:?}: {here}"
        ));
    } else if f.steps.last().and_then(|s| s.line) != f.line {
        errors.push(format!(
            "the last step (the use) is at line {:?}, the finding at {:?}: {here}",
            f.steps.last().and_then(|s| s.line),
            f.line
        ));
    }
    if f.steps
        .iter()
        .any(|s| s.message.trim().is_empty() || s.line.is_none_or(|l| l == 0))
    {
        errors.push(format!("every step needs a line and a message: {here}"));
    }
    errors
}

// ---------------------------------------------------------------------------------------------
// Comparing findings with markers
// ---------------------------------------------------------------------------------------------

type Key = (String, u32, String); // (file, line, rule)

#[derive(Default)]
struct Outcome {
    /// Per file: lines of the diff, each `(line, text)`, and whether the file has a failure.
    files: BTreeMap<String, (Vec<(u32, String)>, bool)>,
    failures: usize,
    matched: usize,
    known_fps: Vec<String>,
    known_fns: usize,
}

impl Outcome {
    fn note(&mut self, file: &str, line: u32, failed: bool, text: String) {
        let entry = self.files.entry(file.to_string()).or_default();
        entry.0.push((line, text));
        if failed {
            entry.1 = true;
            self.failures += 1;
        }
    }
}

fn compare(markers: &BTreeMap<String, Vec<Marker>>, findings: &[Finding]) -> Outcome {
    let mut by_key: BTreeMap<Key, Vec<&Finding>> = BTreeMap::new();
    for f in findings {
        let key = (
            f.file.clone().unwrap_or_default(),
            f.line.unwrap_or(0),
            f.rule.clone(),
        );
        by_key.entry(key).or_default().push(f);
    }
    let mut out = Outcome::default();
    let mut marked: BTreeSet<Key> = BTreeSet::new();
    for (file, file_markers) in markers {
        for m in file_markers {
            let key = (file.clone(), m.line, m.rule.clone());
            marked.insert(key.clone());
            let found = by_key.get(&key).map(Vec::as_slice).unwrap_or(&[]);
            let what = match m.age {
                Some(age) => format!("{}: {}(age={age})", m.kind.name(), m.rule),
                None => format!("{}: {}", m.kind.name(), m.rule),
            };
            let messages = found
                .iter()
                .map(|f| f.message.as_str())
                .collect::<Vec<_>>()
                .join(" | ");
            match (m.kind, found.is_empty()) {
                (Kind::Expect, true) => out.note(
                    file,
                    m.line,
                    true,
                    format!("MISSING     {what}: no finding on this line"),
                ),
                (Kind::Expect, false) => {
                    if let Some(age) = m.age {
                        if !found.iter().any(|f| f.age == Some(age)) {
                            let ages: Vec<_> = found.iter().map(|f| f.age).collect();
                            out.note(
                                file,
                                m.line,
                                true,
                                format!("WRONG AGE   {what}: found age(s) {ages:?}: {messages}"),
                            );
                            continue;
                        }
                    }
                    out.matched += 1;
                    out.note(
                        file,
                        m.line,
                        false,
                        format!("ok          {what}: {messages}"),
                    );
                }
                (Kind::KnownFp, true) => out.note(
                    file,
                    m.line,
                    true,
                    format!(
                        "MISSING     {what}: the known false positive is no longer reported; \
                         if the analysis became more precise, remove the marker"
                    ),
                ),
                (Kind::KnownFp, false) => {
                    out.known_fps
                        .push(format!("{file}:{} {}: {messages}", m.line, m.rule));
                    out.note(
                        file,
                        m.line,
                        false,
                        format!("known-fp    {what}: {messages}"),
                    );
                }
                (Kind::KnownFn, true) => {
                    out.known_fns += 1;
                    out.note(
                        file,
                        m.line,
                        false,
                        format!("known-fn    {what}: (absent, as known)"),
                    );
                }
                (Kind::KnownFn, false) => out.note(
                    file,
                    m.line,
                    true,
                    format!(
                        "NOW FOUND   {what}: the analysis now finds this known false negative; \
                         turn `known-fn` into `expect`: {messages}"
                    ),
                ),
            }
        }
    }
    for (key, found) in &by_key {
        if marked.contains(key) {
            continue;
        }
        let (file, line, rule) = key;
        for f in found {
            out.note(
                file,
                *line,
                true,
                format!(
                    "UNEXPECTED  {rule} in {}.{}{}: {}",
                    f.class, f.method, f.descriptor, f.message
                ),
            );
        }
    }
    out
}

/// The per-file diff of the files with a failure.
fn render_failures(out: &Outcome) -> String {
    let mut text = String::new();
    for (file, (lines, failed)) in &out.files {
        if !failed {
            continue;
        }
        let _ = writeln!(text, "--- {file} (expected vs. actual)");
        let mut lines = lines.clone();
        lines.sort();
        for (line, entry) in lines {
            let _ = writeln!(text, "  {file}:{line:<4} {entry}");
        }
    }
    text
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[test]
fn fixtures_match_markers() {
    let markers = all_markers();
    let marker_count: usize = markers.values().map(Vec::len).sum();
    assert!(
        marker_count > 0,
        "no markers in the fixtures: the harness would test nothing"
    );

    let classes_dir = common::fixture_classes();
    let classes = common::class_names(classes_dir);
    let scan = json_scan();
    let report = &scan.report;

    let mut errors: Vec<String> = Vec::new();

    // The document as a whole.
    let expected_code = report.implied_exit_code();
    if scan.run.code != Some(expected_code) {
        errors.push(format!(
            "exit code {:?}, but the findings imply {expected_code} (1 iff a warning or error)",
            scan.run.code
        ));
    }
    if report.summary.classes != classes.len() as u64 {
        errors.push(format!(
            "summary.classes is {}, but {} class files were scanned",
            report.summary.classes,
            classes.len()
        ));
    }
    for p in &report.problems {
        if p.severity == "error" {
            errors.push(format!(
                "input problem while scanning the fixtures: {}: {}",
                p.path, p.reason
            ));
        } else {
            println!("note while scanning the fixtures: {}: {}", p.path, p.reason);
        }
    }

    // Each finding's shape.
    for f in &report.findings {
        errors.extend(finding_shape_errors(f, &classes));
    }

    // Findings against markers.
    let outcome = compare(&markers, &report.findings);

    println!(
        "fixtures: {} finding(s); {} expected finding(s) matched, {} known false positive(s), \
         {} known false negative(s) still missed",
        report.findings.len(),
        outcome.matched,
        outcome.known_fps.len(),
        outcome.known_fns
    );
    if !outcome.known_fps.is_empty() {
        println!("known false positives (correct code the analyses flag, see the papers):");
        for fp in &outcome.known_fps {
            println!("  {fp}");
        }
    }

    let mut failure = String::new();
    if !errors.is_empty() {
        let _ = writeln!(
            failure,
            "malformed report or findings:\n  {}",
            errors.join("\n  ")
        );
    }
    if outcome.failures > 0 {
        let _ = writeln!(
            failure,
            "{} mismatch(es) between findings and markers (MISSING: marker without finding; \
             UNEXPECTED: finding without marker):\n{}",
            outcome.failures,
            render_failures(&outcome)
        );
    }
    assert!(
        failure.is_empty(),
        "{failure}\nscanner output:\n{}",
        scan.run.describe_brief()
    );
}

/// Where `stale-value` and `causal-stale-value` see the same stale value, one finding remains: the
/// `stale-value` one, confirmed (threads, concurrent writer); IncX.incX is such a case.
#[test]
fn merged_stale_values_are_confirmed_once() {
    let report = &json_scan().report;
    let merged: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| {
            f.rule == "stale-value" && f.message.contains("confirmed by causal-stale-value")
        })
        .collect();
    assert!(
        merged
            .iter()
            .any(|f| f.class == "fixtures.hldr.IncX$AtomicX" && f.method == "incX"),
        "IncX$AtomicX.incX must be one confirmed stale-value finding; confirmed: {:?}",
        merged.iter().map(|f| f.short()).collect::<Vec<_>>()
    );
    for f in &merged {
        assert!(
            !f.threads.is_empty(),
            "a confirmed stale value names its threads: {}",
            f.short()
        );
        assert!(
            !report
                .findings
                .iter()
                .any(|g| g.rule == "causal-stale-value" && g.file == f.file && g.line == f.line),
            "the causal-stale-value duplicate must be gone: {}",
            f.short()
        );
    }
}

/// Snapshots of two variables that one statement combines and acts on are one cause: one
/// `causal-stale-value` finding with a read step for each (QuickCheck.retransmitBuggy reads `hd`
/// and `high` in `missing()` and advances both).
#[test]
fn one_statement_is_one_stale_value() {
    let report = &json_scan().report;
    let found: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| {
            f.rule == "causal-stale-value"
                && f.class == "fixtures.precision.QuickCheck"
                && f.method == "retransmitBuggy"
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one finding for the one statement: {:?}",
        found.iter().map(|f| f.short()).collect::<Vec<_>>()
    );
    let reads = found[0].steps.iter().filter(|s| s.kind == "read").count();
    assert_eq!(
        reads,
        2,
        "both snapshots are read steps of it: {}",
        found[0].short()
    );
}

/// A method-consistency finding whose second view is a concurrent thread's says so: evidence
/// `foreign-view`, the headline names that thread's view, and its lock step is on the other
/// thread's lane, between the method's two sections (PrintAll: `size()`, the remover's view,
/// `get(i)`); one whose two sections are the method's own is `split-sections`
/// (ExclusiveBranches.set).
#[test]
fn method_consistency_names_whose_views_break() {
    let report = &json_scan().report;
    let mc = |class: &str, method: &str| -> &Finding {
        report
            .findings
            .iter()
            .find(|f| f.rule == "method-consistency" && f.class == class && f.method == method)
            .unwrap_or_else(|| panic!("no method-consistency finding at {class}.{method}"))
    };
    let foreign = mc("fixtures.mc.iteration.PrintAll", "printAll");
    assert_eq!(
        foreign.evidence.as_deref(),
        Some("foreign-view"),
        "{}",
        foreign.short()
    );
    assert!(
        foreign
            .message
            .contains("does not nest with a concurrent thread's"),
        "{}",
        foreign.short()
    );
    assert!(
        foreign
            .steps
            .iter()
            .any(|s| s.kind == "lock" && s.message.starts_with("a concurrent thread's lock view")),
        "{}",
        foreign.short()
    );
    // In execution order: `size()`, the remover's view and its write, then `get(i)`.
    let locks: Vec<&str> = foreign
        .steps
        .iter()
        .filter(|s| s.kind == "lock")
        .map(|s| s.message.as_str())
        .collect();
    assert!(
        locks.len() == 3
            && locks[0].contains("SyncList.size()")
            && locks[1].starts_with("a concurrent thread's")
            && locks[2].contains("SyncList.get()"),
        "{locks:?}"
    );
    let own = mc("fixtures.hldr.ExclusiveBranches", "set");
    assert_eq!(
        own.evidence.as_deref(),
        Some("split-sections"),
        "{}",
        own.short()
    );
    assert!(
        own.message.contains("do not form a chain"),
        "{}",
        own.short()
    );
}

/// One stale snapshot tested by `stale-value` and used as an index by `causal-stale-value` is one
/// finding: the `stale-value` one, with the indexed read as a further use
/// (OneSnapshot.totalLength).
#[test]
fn one_snapshot_is_one_finding() {
    let report = &json_scan().report;
    let found: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.class == "fixtures.precision.OneSnapshot" && f.method == "totalLength")
        .filter(|f| f.rule == "stale-value" || f.rule == "causal-stale-value")
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one finding for the one snapshot: {:?}",
        found.iter().map(|f| f.short()).collect::<Vec<_>>()
    );
    assert_eq!(found[0].rule, "stale-value", "{}", found[0].short());
    let uses: Vec<Option<u32>> = found[0]
        .steps
        .iter()
        .filter(|s| s.kind == "use")
        .map(|s| s.line)
        .collect();
    assert_eq!(
        uses.len(),
        2,
        "the bound's test and the indexed read are its uses: {}",
        found[0].short()
    );
    assert!(
        found[0].message.contains("confirmed by causal-stale-value"),
        "the whole-program rule's writer confirms it: {}",
        found[0].message
    );
}

/// The outcome of a thread's own update stored back as the variable's new value is a lost
/// update for the whole-program rule too (StoredBack): each `stale-value` finding there is
/// confirmed by `causal-stale-value`, and the quiet rollbacks have none.
#[test]
fn an_outcome_stored_back_is_a_lost_update() {
    let report = &json_scan().report;
    let of = |class: &str, method: &str| -> Vec<&Finding> {
        (report.findings.iter())
            .filter(|f| f.class == format!("fixtures.recall.StoredBack${class}"))
            .filter(|f| f.method == method && f.level == "warning")
            .collect()
    };
    for (class, method) in [
        ("Limiter", "rollbackBySet"),
        ("Counter", "rollbackStored"),
        ("Switch", "restore"),
    ] {
        let found = of(class, method);
        assert!(
            found.len() == 1 && found[0].message.contains("confirmed by causal-stale-value"),
            "{class}.{method}: one confirmed stale value: {:?}",
            found.iter().map(|f| f.short()).collect::<Vec<_>>()
        );
    }
    for (class, method) in [
        ("Limiter", "rollbackByDecrement"),
        ("Limiter", "rollbackByAdd"),
        ("Limiter", "ticket"),
        ("Counter", "rollbackLocked"),
        ("Switch", "restoreChecked"),
    ] {
        let found = of(class, method);
        assert!(
            found.is_empty(),
            "{class}.{method} is quiet: {:?}",
            found.iter().map(|f| f.short()).collect::<Vec<_>>()
        );
    }
}

#[test]
fn fixtures_sarif_is_valid_and_matches_json() {
    let classes = common::class_names(common::fixture_classes());
    let (run, sarif) = sarif_scan();
    let report = &json_scan().report;

    let schema_errors = stalecheck_sarif::schema_errors(sarif);
    assert!(
        schema_errors.is_empty(),
        "the SARIF log is not valid against the SARIF 2.1.0 schema:\n  {}",
        schema_errors.join("\n  ")
    );
    assert_eq!(sarif["version"], "2.1.0", "SARIF version");
    let runs = sarif["runs"].as_array().expect("runs is an array");
    assert_eq!(runs.len(), 1, "one run expected");
    let results = runs[0]["results"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);

    let declared_rules: Option<BTreeSet<&str>> = runs[0]["tool"]["driver"]["rules"]
        .as_array()
        .map(|rules| rules.iter().filter_map(|r| r["id"].as_str()).collect());

    let mut errors = Vec::new();
    let mut sarif_keys = Vec::new();
    for (i, r) in results.iter().enumerate() {
        let rule = r["ruleId"].as_str().unwrap_or("");
        let where_ = format!("results[{i}] ({rule})");
        if !RULES.contains(&rule) {
            errors.push(format!("{where_}: unknown ruleId"));
        }
        if let Some(declared) = &declared_rules {
            if !declared.contains(rule) {
                errors.push(format!(
                    "{where_}: ruleId not declared in tool.driver.rules"
                ));
            }
        }
        // `level` defaults to "warning" in SARIF when absent.
        let level = r["level"].as_str().unwrap_or("warning");
        // A rule makes a finding a note where its evidence is weak (and says which).
        let evidence = r["properties"]["evidence"].as_str();
        if common::rule_level(rule).is_some() && !common::level_ok(rule, level, evidence) {
            errors.push(format!("{where_}: level {level:?}"));
        }
        // Every rule ranks its results from their evidence (SARIF `rank`, 0 to 100).
        if !r["rank"].as_f64().is_some_and(|k| k > 0.0 && k <= 100.0) {
            errors.push(format!("{where_}: rank {}", r["rank"]));
        }
        let loc = &r["locations"][0];
        let uri = loc["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap_or("");
        let line = loc["physicalLocation"]["region"]["startLine"]
            .as_u64()
            .unwrap_or(0);
        let fqn = loc["logicalLocations"][0]["fullyQualifiedName"]
            .as_str()
            .unwrap_or("");
        let decorated = loc["logicalLocations"][0]["decoratedName"]
            .as_str()
            .unwrap_or("");
        if uri.is_empty() || line == 0 {
            errors.push(format!(
                "{where_}: no physical location (uri {uri:?}, startLine {line})"
            ));
        } else if uri.contains(':') {
            errors.push(format!(
                "{where_}: uri {uri:?} is absolute; it must be relative to --source-root \
                 (like the JSON `file`)"
            ));
        } else if !common::fixtures_src().join(uri).is_file() {
            errors.push(format!(
                "{where_}: uri {uri:?} is not a file under fixtures/src"
            ));
        }
        match fqn.rsplit_once('.') {
            Some((class, method)) if classes.contains(class) && !method.is_empty() => {}
            _ => errors.push(format!(
                "{where_}: fullyQualifiedName {fqn:?} is not <fixture class>.<method>"
            )),
        }
        if !decorated.starts_with('(') {
            errors.push(format!(
                "{where_}: decoratedName {decorated:?} is not a JVM descriptor"
            ));
        }
        if r["relatedLocations"].as_array().is_none_or(Vec::is_empty) {
            errors.push(format!("{where_}: no relatedLocations"));
        }
        let flow = &r["codeFlows"][0]["threadFlows"][0]["locations"];
        if flow.as_array().is_none_or(Vec::is_empty) {
            errors.push(format!(
                "{where_}: no codeFlows[0].threadFlows[0].locations"
            ));
        }
        sarif_keys.push((
            rule.to_string(),
            uri.to_string(),
            line,
            fqn.to_string(),
            decorated.to_string(),
        ));
    }

    if results.len() != report.findings.len() {
        errors.push(format!(
            "{} SARIF results but {} JSON findings",
            results.len(),
            report.findings.len()
        ));
    }
    let mut json_keys: Vec<_> = report
        .findings
        .iter()
        .map(|f| {
            (
                f.rule.clone(),
                f.file.clone().unwrap_or_default(),
                u64::from(f.line.unwrap_or(0)),
                format!("{}.{}", f.class, f.method),
                f.descriptor.clone(),
            )
        })
        .collect();
    sarif_keys.sort();
    json_keys.sort();
    if sarif_keys != json_keys {
        let only_sarif: Vec<_> = sarif_keys
            .iter()
            .filter(|k| !json_keys.contains(k))
            .collect();
        let only_json: Vec<_> = json_keys
            .iter()
            .filter(|k| !sarif_keys.contains(k))
            .collect();
        errors.push(format!(
            "SARIF results and JSON findings differ (rule, uri, line, fqn, descriptor):\n    \
             only in SARIF ({}): {:?}\n    only in JSON ({}): {:?}",
            only_sarif.len(),
            capped(only_sarif.iter().map(|k| format!("{k:?}")), 5),
            only_json.len(),
            capped(only_json.iter().map(|k| format!("{k:?}")), 5)
        ));
    }
    assert!(
        errors.is_empty(),
        "SARIF check failed ({} problem(s)):\n  {}\n{}",
        errors.len(),
        capped(errors.iter().cloned(), 12).join("\n  "),
        run.describe_brief()
    );
}

/// The first `max` lines, and a last one saying how many were left out.
fn capped(lines: impl IntoIterator<Item = String>, max: usize) -> Vec<String> {
    let lines: Vec<String> = lines.into_iter().collect();
    let mut out: Vec<String> = lines.iter().take(max).cloned().collect();
    if lines.len() > max {
        out.push(format!("... and {} more", lines.len() - max));
    }
    out
}

#[test]
fn marker_parser_is_strict() {
    let ok = |src: &str| {
        parse_markers("T.java", src).unwrap_or_else(|e| panic!("should parse: {src:?}: {e:?}"))
    };
    let bad = |src: &str| {
        assert!(
            parse_markers("T.java", src).is_err(),
            "should be rejected: {src:?}"
        );
    };

    assert_eq!(
        ok("x(); // expect: stale-value"),
        vec![Marker {
            line: 1,
            kind: Kind::Expect,
            rule: "stale-value".into(),
            age: None
        }]
    );
    assert_eq!(
        ok("a\nx(); // expect: stale-value(age=2), block-local-atomicity"),
        vec![
            Marker {
                line: 2,
                kind: Kind::Expect,
                rule: "stale-value".into(),
                age: Some(2)
            },
            Marker {
                line: 2,
                kind: Kind::Expect,
                rule: "block-local-atomicity".into(),
                age: None
            },
        ]
    );
    assert_eq!(
        ok("if (c) { // expect: block-local-atomicity; known-fn: stale-value").len(),
        2
    );
    assert_eq!(ok("x(); // known-fp:stale-value").len(), 1);
    // Prose and marker-like text inside literals or block comments are not markers.
    assert!(ok("x(); // the expected value\n/* we expect\n it */ y();").is_empty());
    assert!(ok("s = \"// expect\";").is_empty());
    assert!(ok("    // Known false positive of both rules.\nx(); // known by all").is_empty());

    bad("x(); // expect: stale-valu"); // unknown rule
    bad("x(); // expect: atomicity"); // unknown rule
    bad("x(); // expects: stale-value"); // unknown kind
    bad("x(); // Expect: stale-value"); // kinds are lowercase
    bad("x(); // known_fp: stale-value"); // unknown kind
    bad("x(); // expect stale-value"); // no colon
    bad("x(); // expect:"); // no rule
    bad("x(); // expect: stale-value,"); // empty rule
    bad("x(); // expect: stale-value(age=0)"); // age 0
    bad("x(); // expect: stale-value(age=x)"); // age not a number
    bad("x(); // expect: stale-value(line=2)"); // only age
    bad("x(); // known-fp: stale-value(age=1)"); // age only with expect
    bad("x(); // expect: stale-value, stale-value"); // twice
    bad("x(); // expect: stale-value; known-fn: stale-value"); // twice across kinds
    bad("// expect: stale-value"); // no code on the line
    bad("    // expect: stale-value"); // no code on the line
    bad("x(); // note, expect: stale-value"); // does not start the comment
    bad("x(); /* expect: stale-value */"); // not a line comment
}

#[test]
fn compare_reports_every_kind_of_mismatch() {
    let finding = |line: u32, rule: &str, age: Option<u32>| Finding {
        rule: rule.into(),
        level: common::rule_level(rule).unwrap().into(),
        message: format!("finding at {line}"),
        class: "fixtures.t.T".into(),
        method: "m".into(),
        descriptor: "()V".into(),
        file: Some("fixtures/t/T.java".into()),
        line: Some(line),
        age,
        steps: Vec::new(),
        threads: Vec::new(),
        evidence: None,
    };
    let source = "\
a(); // expect: stale-value(age=1)
b(); // expect: stale-value(age=2)
c(); // expect: block-local-atomicity
d(); // known-fp: stale-value
e(); // known-fp: stale-value
f(); // known-fn: stale-value
g(); // known-fn: stale-value
h();
";
    let markers = BTreeMap::from([(
        "fixtures/t/T.java".to_string(),
        parse_markers("fixtures/t/T.java", source).unwrap(),
    )]);
    let findings = vec![
        finding(1, "stale-value", Some(1)),        // ok
        finding(2, "stale-value", Some(1)),        // wrong age
        finding(4, "stale-value", Some(1)),        // known-fp present: ok
        finding(7, "stale-value", Some(1)),        // known-fn now found
        finding(8, "block-local-atomicity", None), // unexpected
        finding(1, "block-local-atomicity", None), // unexpected (other rule on a marked line)
    ];
    let out = compare(&markers, &findings);
    let rendered = render_failures(&out);
    assert_eq!(out.matched, 1, "{rendered}");
    assert_eq!(out.known_fps.len(), 1, "{rendered}");
    assert_eq!(out.known_fns, 1, "{rendered}");
    // wrong age (2), missing (3), known-fp gone (5), known-fn found (7), unexpected (8 and 1).
    assert_eq!(out.failures, 6, "{rendered}");
    for needle in [
        "T.java:2    WRONG AGE",
        "T.java:3    MISSING     expect: block-local-atomicity",
        "T.java:5    MISSING     known-fp: stale-value",
        "T.java:7    NOW FOUND",
        "T.java:8    UNEXPECTED  block-local-atomicity",
        "T.java:1    UNEXPECTED  block-local-atomicity",
    ] {
        assert!(
            rendered.contains(needle),
            "missing {needle:?} in:\n{rendered}"
        );
    }
}
