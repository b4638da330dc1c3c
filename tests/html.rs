//! The HTML report (`--format html`) of the fixtures: its structure (every finding present,
//! every step linked to its source line, the SVG well-formed and its links resolving), the same
//! steps as the text and SARIF outputs for every finding, and a real headless Chromium opening
//! it (no console errors, every diagram drawn, screenshots of the overview and two findings,
//! readable with JavaScript off).
//!
//! The Chromium test needs Debian's `chromium` (`.ci/run` installs it) and python3; without
//! them it fails and says what to install. `STALECHECK_SKIP_BROWSER_TESTS=1` leaves it out on
//! purpose (it then prints that it did).

mod common;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

/// The fixtures scanned with every rule and their sources, in one format.
fn scan(format: &str) -> String {
    let classes = common::fixture_classes();
    let src = common::fixtures_src();
    let run = common::stalecheck([
        "scan".as_ref(),
        classes.as_os_str(),
        "--rules".as_ref(),
        "all".as_ref(),
        "--source-root".as_ref(),
        src.as_os_str(),
        "--format".as_ref(),
        format.as_ref(),
        "--fail-on".as_ref(),
        "none".as_ref(),
    ]);
    run.expect_code(0, "a scan of the fixtures with --fail-on none");
    run.stdout
}

fn html() -> &'static str {
    static HTML: OnceLock<String> = OnceLock::new();
    HTML.get_or_init(|| scan("html"))
}

/// The findings of the JSON report that the other formats list (not suppressed).
fn json_findings() -> Vec<Value> {
    let v: Value = serde_json::from_str(&scan("json")).expect("a JSON report");
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f.get("suppressions").is_none())
        .cloned()
        .collect()
}

/// `&amp;` and friends back to text (what the report writes, see `report::html::esc`).
fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The text between `start` and the next `end` after it, for every occurrence.
fn between<'a>(s: &'a str, start: &str, end: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find(start) {
        let after = &rest[i + start.len()..];
        let Some(j) = after.find(end) else { break };
        out.push(&after[..j]);
        rest = &after[j + end.len()..];
    }
    out
}

/// The value of attribute `name` in a start tag's text.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    let j = tag[i..].find('"')?;
    Some(&tag[i..i + j])
}

/// One step as every format gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct StepSeen {
    kind: String,
    line: Option<u32>,
    message: String,
}

/// A finding section of the HTML report: its id, rule, headline and steps.
struct Section<'a> {
    id: String,
    rule: String,
    headline: String,
    body: &'a str,
    steps: Vec<(StepSeen, String, Option<String>)>, // step, li id, link target
}

fn sections(doc: &str) -> Vec<Section<'_>> {
    between(doc, "<section class=\"finding\"", "</section>")
        .into_iter()
        .map(|body| {
            let head = &body[..body.find('>').expect("a start tag")];
            let steps = between(body, "<li ", "</li>")
                .into_iter()
                .map(|li| {
                    let tag = format!(" {}", &li[..li.find('>').expect("li start tag")]);
                    let tag = tag.as_str();
                    // `<b>kind</b> <span>message</span>`, after the place.
                    let msg = li
                        .split_once("</b> <span>")
                        .and_then(|(_, m)| m.strip_suffix("</span>"))
                        .map(unescape)
                        .expect("a step message");
                    let link = between(li, "<a href=\"#", "\"")
                        .first()
                        .map(|s| s.to_string());
                    (
                        StepSeen {
                            kind: attr(tag, "data-kind")
                                .expect("data-kind")
                                .trim_end_matches(" other")
                                .to_string(),
                            line: attr(tag, "data-line").and_then(|l| l.parse().ok()),
                            message: msg,
                        },
                        attr(tag, "id").expect("a step id").to_string(),
                        link,
                    )
                })
                .collect();
            Section {
                id: attr(head, "id").expect("section id").to_string(),
                rule: attr(head, "data-rule").expect("data-rule").to_string(),
                headline: unescape(
                    between(body, "<p class=\"headline\">", "</p>")
                        .first()
                        .expect("a headline"),
                ),
                body,
                steps,
            }
        })
        .collect()
}

/// Every `id="..."` of the document.
fn ids(doc: &str) -> HashSet<&str> {
    between(doc, " id=\"", "\"").into_iter().collect()
}

/// Parse an SVG fragment as XML (well-formed, with its namespaces) and return it.
fn parse_svg(svg: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse(svg)
        .unwrap_or_else(|e| panic!("the SVG is not well-formed XML: {e}\n{svg}"))
}

#[test]
fn html_report_has_every_finding_every_step_linked_and_well_formed_svg() {
    let doc = html();
    let findings = json_findings();
    assert!(findings.len() > 50, "the fixtures give many findings");
    assert!(doc.starts_with("<!DOCTYPE html>"), "an HTML5 document");
    // Self-contained: nothing loaded from anywhere.
    for needle in ["http://", "https://", "<link", "src=\""] {
        let n = doc.matches(needle).count();
        let allowed = if needle == "http://" {
            // The SVG namespaces only.
            doc.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
                + doc
                    .matches("xmlns:xlink=\"http://www.w3.org/1999/xlink\"")
                    .count()
        } else {
            0
        };
        assert_eq!(n, allowed, "the report loads nothing ({needle:?})");
    }
    let ids = ids(doc);
    let secs = sections(doc);
    assert_eq!(secs.len(), findings.len(), "one section per finding");
    // The findings table: one row per finding, linking to its section.
    // Written once inside `<noscript>` (the script shows it sortable and filterable).
    let table = between(
        doc,
        "<noscript id=\"rows\"><table class=\"findings\">",
        "</table>",
    )[0];
    let rows = between(table, "<tr><td", "</tr>");
    assert_eq!(rows.len(), findings.len(), "one table row per finding");
    // Counts per rule in the overview.
    let counts = between(doc, "<table class=\"counts\">", "</table>")[0];
    let mut per_rule: HashMap<&str, usize> = HashMap::new();
    for f in &findings {
        *per_rule.entry(f["rule"].as_str().unwrap()).or_default() += 1;
    }
    for (rule, n) in &per_rule {
        let row = between(counts, &format!("<td><code>{rule}</code>"), "</tr>");
        let shown: usize = row
            .iter()
            .map(|r| {
                between(r, "<td class=\"num\">", "</td>")[0]
                    .parse::<usize>()
                    .unwrap()
            })
            .sum();
        assert_eq!(shown, *n, "overview count of {rule}");
    }
    let mut linked = 0;
    let mut diagrams = 0;
    let symbols_svg = between(doc, "<svg id=\"shapes\"", "</svg>")[0];
    let symbols_svg = format!("<svg id=\"shapes\"{symbols_svg}</svg>");
    let symbols = parse_svg(&symbols_svg);
    let symbol_ids: HashMap<&str, roxmltree::Node> = symbols
        .descendants()
        .filter(|n| n.has_tag_name("symbol"))
        .map(|n| (n.attribute("id").unwrap(), n))
        .collect();
    for (k, (s, f)) in secs.iter().zip(&findings).enumerate() {
        let here = format!("{} in {}.{}", s.id, f["class"], f["method"]);
        assert_eq!(s.id, format!("f{}", k + 1), "sections in order");
        assert!(
            rows[k].contains(&format!("href=\"#{}\"", s.id)),
            "table row {k} links to its section"
        );
        assert_eq!(s.rule, f["rule"].as_str().unwrap(), "{here}");
        assert_eq!(s.headline, f["message"].as_str().unwrap(), "{here}");
        let steps = f["steps"].as_array().unwrap();
        assert_eq!(s.steps.len(), steps.len(), "every step listed: {here}");
        for (st, (seen, li_id, link)) in steps.iter().zip(&s.steps) {
            let line = st["line"].as_u64().map(|l| l as u32);
            assert_eq!(seen.line, line, "{here}");
            assert!(ids.contains(li_id.as_str()), "{here}");
            // A step of the finding's own file with a line links to that line of the source,
            // marked; the fixtures' sources are all found.
            if st.get("file").is_none() {
                let l = line.unwrap_or_else(|| panic!("a step without a line: {here}"));
                let target = format!("{}-L{l}", s.id);
                assert_eq!(link.as_deref(), Some(target.as_str()), "{here}");
                let marked = between(s.body, &format!("<b id=\"{target}\">"), "</b>");
                assert_eq!(
                    marked.len(),
                    1,
                    "line {l} is in the excerpt, marked: {here}"
                );
                assert!(
                    marked[0].starts_with(&format!("<i>{l}</i>")),
                    "the line is numbered {l}: {here}"
                );
                linked += 1;
            }
        }
        // The diagram: well-formed SVG, one link per step to its entry, the shape it uses drawn
        // with two lanes and a node per step.
        let svg = between(s.body, "<svg class=\"diagram\"", "</svg>");
        assert_eq!(svg.len(), 1, "one diagram: {here}");
        diagrams += 1;
        let svg = format!("<svg class=\"diagram\"{}</svg>", svg[0]);
        let d = parse_svg(&svg);
        let links: Vec<&str> = d
            .descendants()
            .filter(|n| n.has_tag_name("a"))
            .map(|n| n.attribute("href").unwrap())
            .collect();
        let expected: Vec<String> = (1..=steps.len())
            .map(|i| format!("#{}-s{i}", s.id))
            .collect();
        assert_eq!(links, expected, "each step node links to its step: {here}");
        let used = d
            .descendants()
            .find(|n| n.has_tag_name("use"))
            .and_then(|n| n.attribute("href"))
            .unwrap_or_else(|| panic!("the diagram uses a shape: {here}"));
        let shape = symbol_ids
            .get(&used[1..])
            .unwrap_or_else(|| panic!("shape {used} is drawn: {here}"));
        let lanes = shape
            .descendants()
            .filter(|n| n.has_tag_name("line"))
            .count();
        assert_eq!(lanes, 2, "two lanes: {here}");
        let nodes = shape
            .descendants()
            .filter(|n| n.has_tag_name("circle"))
            .count();
        assert_eq!(nodes, steps.len(), "a node per step: {here}");
        let boxes = shape
            .descendants()
            .filter(|n| n.attribute("class") == Some("cs"))
            .count();
        assert!(boxes >= 1, "at least one critical section: {here}");
    }
    assert!(linked > 100, "steps linked to source lines: {linked}");
    assert_eq!(diagrams, findings.len());
    // The per-package chart parses too.
    let chart = between(doc, "<svg class=\"chart\"", "</svg>")[0];
    let chart = format!("<svg class=\"chart\"{chart}</svg>");
    let c = parse_svg(&chart);
    assert!(c.descendants().filter(|n| n.has_tag_name("rect")).count() >= 5);
}

/// The steps of every finding in the text output, in order (the `steps, in execution order:`
/// block: `  N. kind (place) message`).
fn text_steps(text: &str) -> Vec<Vec<StepSeen>> {
    let mut out: Vec<Vec<StepSeen>> = Vec::new();
    for line in text.lines() {
        if line.trim() == "steps, in execution order:" {
            out.push(Vec::new());
            continue;
        }
        let t = line.trim_start();
        let Some((num, rest)) = t.split_once(". ") else {
            continue;
        };
        if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) || !line.starts_with("    ") {
            continue;
        }
        let Some((kind, rest)) = rest.split_once(" (") else {
            continue;
        };
        let Some((place, message)) = rest.split_once(") ") else {
            continue;
        };
        // `line 12`, `line 30 in A.get`, `pkg/Other.java:40`, `get #14`.
        let line_no = place
            .strip_prefix("line ")
            .map(|l| l.split(' ').next().unwrap_or(l))
            .or_else(|| place.rsplit_once(':').map(|(_, l)| l))
            .and_then(|l| l.parse().ok());
        if let Some(cur) = out.last_mut() {
            cur.push(StepSeen {
                kind: kind.to_string(),
                line: line_no,
                message: message.to_string(),
            });
        }
    }
    out
}

/// The steps of every (not suppressed) result's code flow in the SARIF log, with the step
/// kinds named as the other formats name them.
fn sarif_steps(sarif: &str) -> Vec<Vec<StepSeen>> {
    let v: Value = serde_json::from_str(sarif).expect("SARIF is JSON");
    v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r.get("suppressions")
                .is_none_or(|s| s.as_array().unwrap().is_empty())
        })
        .map(|r| {
            r["codeFlows"][0]["threadFlows"][0]["locations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| {
                    let kind = match l["kinds"][0].as_str().unwrap() {
                        "release" => "stale",
                        "acquire" => "lock",
                        k => k,
                    };
                    let loc = &l["location"];
                    StepSeen {
                        kind: kind.to_string(),
                        line: loc["physicalLocation"]["region"]["startLine"]
                            .as_u64()
                            .map(|l| l as u32),
                        message: loc["message"]["text"].as_str().unwrap().to_string(),
                    }
                })
                .collect()
        })
        .collect()
}

#[test]
fn text_sarif_and_html_give_the_same_steps_for_every_fixture_finding() {
    let secs = sections(html());
    // The headline says nothing the steps do not: every line it names, `(line N)`, is a step's
    // line or named in a step.
    for s in &secs {
        for part in s.headline.split("(line ").skip(1) {
            let Some(n) = part.split(')').next().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            let said = s
                .steps
                .iter()
                .any(|(st, _, _)| st.line == Some(n) || st.message.contains(&format!("line {n}")));
            assert!(
                said,
                "{}: the headline names line {n}, no step does: {}",
                s.id, s.headline
            );
        }
    }
    // Which steps the other thread takes (its lane of the interleaving): their lines are in
    // another method, so the order of lines says nothing about a loop around them.
    let others: Vec<Vec<bool>> = secs
        .iter()
        .map(|s| {
            between(s.body, "<li ", "</li>")
                .into_iter()
                .map(|li| li[..li.find('>').unwrap_or(0)].contains(" other\""))
                .collect()
        })
        .collect();
    let html_steps: Vec<Vec<StepSeen>> = secs
        .into_iter()
        .map(|s| s.steps.into_iter().map(|(st, _, _)| st).collect())
        .collect();
    let text = text_steps(&scan("text"));
    let sarif = sarif_steps(&scan("sarif"));
    assert!(html_steps.len() > 50);
    assert_eq!(
        text.len(),
        html_steps.len(),
        "text and HTML list the same findings"
    );
    assert_eq!(
        sarif.len(),
        html_steps.len(),
        "SARIF and HTML list the same findings"
    );
    for (i, ((h, t), s)) in html_steps.iter().zip(&text).zip(&sarif).enumerate() {
        assert_eq!(h, t, "finding {}: HTML and text steps differ", i + 1);
        assert_eq!(h, s, "finding {}: HTML and SARIF steps differ", i + 1);
        // Execution order: a step above the one before it in the same file says a loop
        // brought execution back.
        for (k, w) in h.windows(2).enumerate() {
            if others[i].get(k).copied().unwrap_or(false) {
                continue;
            }
            if let (Some(a), Some(b)) = (w[0].line, w[1].line) {
                if b < a && w[0].kind != w[1].kind && w[1].kind == "use" {
                    assert!(
                        w[1].message.contains("back edge")
                            || w[1].message.contains("execution returns to this line"),
                        "finding {}: a use above its read names the loop: {:?}",
                        i + 1,
                        w
                    );
                }
            }
        }
    }
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn html_report_opens_in_headless_chromium() {
    if std::env::var_os("STALECHECK_SKIP_BROWSER_TESTS").is_some() {
        eprintln!("SKIPPED on request (STALECHECK_SKIP_BROWSER_TESTS): the Chromium test");
        return;
    }
    assert!(
        have("chromium"),
        "`chromium` is not installed: `apt-get install chromium` (or set \
         STALECHECK_SKIP_BROWSER_TESTS=1 to leave the browser test out)"
    );
    assert!(have("python3"), "python3 is needed to drive Chromium");
    let dir = common::scratch_dir("html-browser");
    let report = dir.join("report.html");
    std::fs::write(&report, html()).unwrap();
    // Two findings of different shapes: a stale value (read, stale, use) and a race between
    // two threads' critical sections.
    let secs = sections(html());
    let pick = |rule: &str| {
        secs.iter()
            .position(|s| s.rule == rule)
            .map(|i| i + 1)
            .unwrap_or_else(|| panic!("a {rule} finding in the fixtures"))
    };
    let chosen = [pick("stale-value"), pick("high-level-data-race")];
    let shots: PathBuf = dir.join("screenshots");
    let script = common::repo_root().join("tests/scripts/browser.py");
    let mut cmd = Command::new("python3");
    cmd.arg(&script).arg(&report).arg(&shots);
    for n in chosen {
        cmd.arg("--finding").arg(n.to_string());
    }
    let out = cmd.output().expect("run tests/scripts/browser.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the report failed in Chromium ({}):\n{stdout}\n{stderr}",
        out.status
    );
    let v: Value = serde_json::from_str(&stdout).expect("browser.py prints JSON");
    assert_eq!(
        v["errors"],
        serde_json::json!([]),
        "no console errors: {stdout}"
    );
    assert_eq!(v["findings"].as_u64(), Some(secs.len() as u64), "{stdout}");
    assert_eq!(
        v["diagrams"].as_u64(),
        Some(secs.len() as u64),
        "every diagram drawn: {stdout}"
    );
    // The table's first page (500 rows), then the rest behind "Show more rows".
    let first_page = secs.len().min(500) as u64;
    assert_eq!(v["rows"].as_u64(), Some(first_page), "{stdout}");
    assert_eq!(
        v["more_shown"],
        secs.len() > 500,
        "a \"Show more rows\" control exactly when there are more rows: {stdout}"
    );
    assert_eq!(
        v["all_rows"].as_u64(),
        Some(secs.len() as u64),
        "every row reachable: {stdout}"
    );
    assert_eq!(
        v["filter_shown"], true,
        "the filter works with JavaScript: {stdout}"
    );
    assert_eq!(
        v["without_js"]["findings"].as_u64(),
        Some(secs.len() as u64),
        "readable with JavaScript off: {stdout}"
    );
    assert_eq!(v["without_js"]["filter_shown"], false, "{stdout}");
    let expected = ["overview.png".to_string()]
        .into_iter()
        .chain(chosen.iter().map(|n| format!("finding-{n}.png")));
    for name in expected {
        let p: &Path = &shots.join(&name);
        let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{name} is a PNG");
        // A blank page compresses to a few kilobytes; a drawn one does not.
        assert!(
            bytes.len() > 15_000,
            "{name} shows something ({} bytes)",
            bytes.len()
        );
    }
    eprintln!("screenshots in {}", shots.display());
}

#[test]
fn with_a_baseline_the_overview_counts_new_and_baselined_findings() {
    let dir = common::scratch_dir("html-baseline");
    let classes = common::fixture_classes();
    let src = common::fixtures_src();
    let base = dir.join("base.sarif");
    // A baseline of the stale-value findings only: the other rules' findings are new.
    common::stalecheck([
        "baseline".as_ref(),
        classes.as_os_str(),
        "--rules".as_ref(),
        "stale-value".as_ref(),
        "--source-root".as_ref(),
        src.as_os_str(),
        "--output".as_ref(),
        base.as_os_str(),
    ])
    .expect_code(0, "baseline written");
    let run = common::stalecheck([
        "scan".as_ref(),
        classes.as_os_str(),
        "--rules".as_ref(),
        "stale-value,block-local-atomicity".as_ref(),
        "--source-root".as_ref(),
        src.as_os_str(),
        "--baseline".as_ref(),
        base.as_os_str(),
        "--format".as_ref(),
        "html".as_ref(),
        "--fail-on".as_ref(),
        "none".as_ref(),
    ]);
    run.expect_code(0, "a scan with a baseline");
    let doc = &run.stdout;
    let counts = between(doc, "<table class=\"counts\">", "</table>")[0];
    assert!(counts.contains("<th class=\"num\">New</th><th class=\"num\">Baselined</th>"));
    let row = |rule: &str| -> Vec<usize> {
        between(counts, &format!("<td><code>{rule}</code>"), "</tr>")[0]
            .split("<td class=\"num\">")
            .skip(1)
            .map(|c| c.split('<').next().unwrap().parse().unwrap())
            .collect()
    };
    // findings, new, baselined, suppressed
    let sv = row("stale-value");
    assert!(
        sv[0] > 10 && sv[1] == 0 && sv[2] == sv[0],
        "stale-value: {sv:?}"
    );
    let bla = row("block-local-atomicity");
    assert!(
        bla[0] > 10 && bla[1] == bla[0] && bla[2] == 0,
        "block-local-atomicity: {bla:?}"
    );
    // Each finding says its state, in the table and its section.
    let secs = sections(doc);
    assert_eq!(secs.len(), sv[0] + bla[0]);
    for s in &secs {
        let state = if s.rule == "stale-value" {
            "unchanged"
        } else {
            "new"
        };
        assert!(
            s.body
                .contains(&format!("<span class=\"state {state}\">[{state}]</span>")),
            "{} ({}) is {state}",
            s.id,
            s.rule
        );
    }
}

/// Input problems reach the HTML report too: one row per bad input, with its path and reason.
#[test]
fn input_problems_are_listed() {
    let dir = common::scratch_dir("html-problems");
    std::fs::write(dir.join("Broken.class"), b"\xca\xfe\xba\xbe not a class").expect("write");
    std::fs::write(dir.join("cut.jar"), b"PK\x03\x04 truncated").expect("write");
    let run = common::stalecheck([
        "scan".as_ref(),
        dir.as_os_str(),
        "--format".as_ref(),
        "html".as_ref(),
    ]);
    run.expect_code(2, "a scan with unreadable inputs");
    let doc = &run.stdout;
    let rows = between(doc, "<tr class=\"problem\"", "</tr>");
    assert_eq!(rows.len(), 2, "one row per bad input: {rows:?}");
    assert!(rows.iter().any(|r| r.contains("Broken.class")), "{rows:?}");
    assert!(rows.iter().any(|r| r.contains("cut.jar")), "{rows:?}");
    assert!(
        rows.iter().all(|r| r.contains("data-severity=\"error\"")),
        "{rows:?}"
    );
}
