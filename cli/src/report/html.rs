//! `--format html`: one self-contained page (inline CSS, SVG and a little plain JavaScript; no
//! network) that reads the same with JavaScript off. An overview (counts per rule and level,
//! new versus baselined, the findings table, findings per package) and a section per finding:
//! the headline, the steps (the same list as the text and the SARIF code flow), an SVG
//! interleaving diagram (one lane per thread, the critical sections as boxes, the concurrent
//! write between them, the value's path as arrows, each step linked to its source line) and the
//! source cut to the lines around the steps. Without the source the diagram names methods and
//! bytecode offsets (`get @14`) instead of lines. The input problems of the scan are listed
//! after the overview.
//!
//! Size: a finding costs its headline, its steps, a small diagram and a few source lines; no
//! file is embedded whole, so a report of 10,000 findings stays a few megabytes
//! (bench/html.sh measures it).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use super::Report;
use crate::explain::{Diagnostic, Step, StepKind};
use crate::rules::Level;

/// Escape text for HTML element content and quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    esc_into(&mut out, s);
    out
}

fn esc_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters are not allowed in XML (the SVG) and mean nothing here.
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
}

/// The word for a step kind, as in the text output.
pub fn step_name(k: StepKind) -> &'static str {
    k.word()
}

fn level_word(l: Level) -> &'static str {
    match l {
        Level::Note => "note",
        Level::Warning => "warning",
        Level::Error => "error",
    }
}

const CSS: &str = r#"
:root{--read:#1f6feb;--stale:#bf8700;--use:#cf222e;--lock:#8250df;--access:#1a7f37;--other:#d1242f;--fg:#1f2328;--mut:#59636e;--bd:#d1d9e0}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);margin:0;background:#f6f8fa}
header{background:#24292f;color:#fff;padding:12px 24px}header h1{margin:0;font-size:20px}header p{margin:4px 0 0;color:#d0d7de}
main{max-width:1200px;margin:0 auto;padding:12px 24px}
section{background:#fff;border:1px solid var(--bd);border-radius:6px;padding:12px 16px;margin:12px 0}
section.finding{content-visibility:auto;contain-intrinsic-size:auto 520px}
h2{font-size:17px;margin:4px 0 8px}h3{font-size:15px;margin:12px 0 6px}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid var(--bd);padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa;position:sticky;top:0}th[data-sort]{cursor:pointer}th[aria-sort=ascending]::after{content:" \25B2"}th[aria-sort=descending]::after{content:" \25BC"}
td.num,th.num,table.findings td:nth-child(1),table.findings td:nth-child(4),#findings td:nth-child(1),#findings td:nth-child(4){text-align:right}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.lvl{display:inline-block;padding:0 6px;border-radius:10px;font-size:12px;color:#fff;background:#6e7781}
.lvl.error{background:#cf222e}.lvl.warning{background:#bf8700}.lvl.note{background:#0969da}
.state{font-size:12px;color:var(--mut)}.state.new{color:#cf222e;font-weight:600}
.headline{font-size:15px;margin:6px 0}.where{color:var(--mut);margin:2px 0 8px}
ol.steps{margin:6px 0;padding-left:22px}ol.steps li{margin:2px 0}ol.steps li b{display:inline-block;min-width:48px}
li[data-kind=read] b{color:var(--read)}li[data-kind=stale] b{color:var(--stale)}li[data-kind=use] b{color:var(--use)}li[data-kind=lock] b{color:var(--lock)}li[data-kind=access] b{color:var(--access)}li[data-kind$=other] b{color:var(--other)}
div.more{color:var(--mut);padding:8px 16px}
.k-read{color:var(--read)}.k-stale{color:var(--stale)}.k-use{color:var(--use)}.k-lock{color:var(--lock)}.k-access{color:var(--access)}.k-other{color:var(--other)}
svg.diagram{display:block;margin:8px 0;max-width:100%;height:auto;font:12px system-ui,sans-serif}
.lane{stroke:#8c959f;stroke-width:1.5}.cs{fill:#ddf4ff;stroke:#54aeff;rx:6}.wr{fill:#ffebe9;stroke:#ff8182}
.flow{stroke:#1f2328;stroke-width:1.6;fill:none;marker-end:url(#arr)}.race{stroke:var(--other);stroke-width:1.6;fill:none;stroke-dasharray:5 3;marker-end:url(#arr-r)}
circle{stroke:#fff;stroke-width:2}circle.hit{fill:transparent;stroke:none}a:hover circle.hit,a:focus circle.hit{stroke:#0969da;stroke-width:2}circle.k-read{fill:var(--read)}circle.k-stale{fill:var(--stale)}circle.k-use{fill:var(--use)}circle.k-lock{fill:var(--lock)}circle.k-access{fill:var(--access)}circle.k-other{fill:var(--other)}
.n{fill:#fff;font-weight:700;text-anchor:middle}.lbl{text-anchor:middle;fill:var(--fg)}.sub{text-anchor:middle;fill:var(--mut);font-size:11px}.tn{font-weight:600}
svg.chart text{font-size:12px}svg.chart rect{fill:#54aeff}
pre.src{background:#f6f8fa;border:1px solid var(--bd);border-radius:6px;padding:6px 0;overflow-x:auto;margin:8px 0}
pre.src{padding:6px 10px;white-space:pre}pre.src i{display:inline-block;width:48px;color:var(--mut);font-style:normal;text-align:right;margin-right:12px;user-select:none}
pre.src b{display:block;font-weight:normal;background:#fff8c5;margin:0 -10px;padding:0 10px}pre.src em{font-style:normal;font-weight:600;margin-left:16px}
pre.src b:target,ol.steps li:target{outline:2px solid #0969da}
#filter{width:100%;padding:6px;margin:6px 0;font:inherit}
.muted{color:var(--mut)}
"#;

const JS: &str = r#"
(function(){
'use strict';
function html(ns){var t=document.createElement('template');t.innerHTML=ns.textContent;return t.content;}
function show(ns){if(!ns||!ns.parentNode||ns.tagName!=='NOSCRIPT')return;var m=ns.previousElementSibling;ns.parentNode.replaceChild(html(ns),ns);if(m&&m.className==='more')m.remove();}
var pages=Array.prototype.slice.call(document.querySelectorAll('noscript.page'));
function showFinding(n){for(var i=0;i<pages.length;i++){var p=pages[i];if(n>=+p.getAttribute('data-first')&&n<=+p.getAttribute('data-last'))show(p);}}
window.stalecheckShowAll=function(){pages.forEach(show);};
function go(){var m=/^#f(\d+)/.exec(location.hash);if(!m)return;showFinding(+m[1]);var e=document.getElementById(location.hash.slice(1));if(e)e.scrollIntoView();}
window.addEventListener('hashchange',go);
if('IntersectionObserver' in window){var io=new IntersectionObserver(function(es){es.forEach(function(e){if(e.isIntersecting){io.unobserve(e.target);show(e.target.nextElementSibling);}});},{rootMargin:'1500px'});
document.querySelectorAll('div.more').forEach(function(d){io.observe(d);});}else{window.stalecheckShowAll();}
var ns=document.getElementById('rows'),t=document.getElementById('findings');
if(ns&&t){
var rows=Array.prototype.slice.call(html(ns).querySelectorAll('tbody tr')),body=t.tBodies[0],f=document.getElementById('filter'),more=document.getElementById('more-rows');
rows.forEach(function(r){r._t=r.textContent.toLowerCase();});
var shown=rows,limit=500;
function draw(){var frag=document.createDocumentFragment();shown.slice(0,limit).forEach(function(r){frag.appendChild(r);});body.textContent='';body.appendChild(frag);more.hidden=shown.length<=limit;more.firstChild.textContent='Show more rows ('+Math.min(limit,shown.length)+' of '+shown.length+')';}
function filter(){var q=f.value.toLowerCase().split(/\s+/).filter(Boolean);shown=rows.filter(function(r){return q.every(function(w){return r._t.indexOf(w)>=0;});});limit=500;draw();}
f.hidden=false;t.hidden=false;f.addEventListener('input',filter);
more.firstChild.addEventListener('click',function(){limit+=500;draw();});
var ths=t.tHead.rows[0].cells;
Array.prototype.forEach.call(ths,function(th,i){th.addEventListener('click',function(){var asc=th.getAttribute('aria-sort')!=='ascending';
Array.prototype.forEach.call(ths,function(h){h.removeAttribute('aria-sort');});th.setAttribute('aria-sort',asc?'ascending':'descending');
var num=th.getAttribute('data-sort')==='n';function key(r){var c=r.cells[i];return c.getAttribute('data-v')||c.textContent;}
rows.sort(function(a,b){var x=key(a),y=key(b),c=num?(parseFloat(x)||0)-(parseFloat(y)||0):x.localeCompare(y);return asc?c:-c;});filter();});});
draw();}
go();
})();
"#;

/// Findings per page (see [`render`]).
const PAGE: usize = 200;

/// Render the report. Suppressed findings are counted in the overview and left out of the
/// list, as in the text output.
pub fn render(report: &Report<'_>) -> String {
    let out = report.out;
    let shown: Vec<usize> = (0..out.diagnostics.len())
        .filter(|&i| !report.suppressed(i))
        .collect();
    let mut s = String::with_capacity(4096 + shown.len() * 2048);
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    s.push_str("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">");
    s.push_str("<title>stalecheck report</title><style>");
    s.push_str(CSS);
    s.push_str("</style></head>\n<body>\n<header><h1>stalecheck report</h1><p>");
    esc_into(&mut s, &super::text::summary_line(report));
    s.push_str("</p></header>\n");
    // Arrow heads, shared by every diagram.
    s.push_str(
        "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>\
         <marker id=\"arr\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#1f2328\"/></marker>\
         <marker id=\"arr-r\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#d1242f\"/></marker>\
         </defs></svg>\n<main>\n",
    );
    overview(&mut s, report, &shown);
    problems(&mut s, &out.problems);
    let mut sources = super::SourceFiles::default();
    let mut shapes = Shapes::default();
    // Pages of findings: the first is plain HTML; the others are inside `<noscript>`, which
    // the parser keeps as one text node when JavaScript is on (the script turns a page into
    // HTML when it scrolls into view or a link names one of its findings) and shows as HTML
    // when it is off. A report of 10,000 findings then opens as fast as one of a page.
    for (p, page) in shown.chunks(PAGE).enumerate() {
        let first = p * PAGE + 1;
        let last = first + page.len() - 1;
        if p > 0 {
            let _ = writeln!(
                s,
                "<div class=\"more\" data-first=\"{first}\" data-last=\"{last}\">Findings {first} to {last}</div><noscript class=\"page\" data-first=\"{first}\" data-last=\"{last}\">"
            );
        }
        for (k, &i) in page.iter().enumerate() {
            let d = &out.diagnostics[i];
            let state = report.results[i].baseline_state.map(|st| st.as_str());
            finding(&mut s, &mut shapes, first + k, d, state, &mut sources);
        }
        if p > 0 {
            s.push_str("</noscript>\n");
        }
    }
    s.push_str("</main>\n");
    // The diagrams' shapes, drawn once each.
    let _ = write!(
        s,
        "<svg id=\"shapes\" xmlns=\"http://www.w3.org/2000/svg\" width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\">{}</svg>\n<script>",
        shapes.symbols
    );
    s.push_str(JS);
    s.push_str("</script>\n</body></html>\n");
    s
}

/// The input problems of the scan (what could not be read or analysed, and notes on doubtful
/// inputs), one row each, as in every other format.
fn problems(s: &mut String, problems: &[crate::diag::InputProblem]) {
    if problems.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "<section id=\"problems\"><h2>Input problems ({})</h2>\n<table><thead><tr><th>severity</th><th>input</th><th>reason</th></tr></thead><tbody>",
        problems.len()
    );
    for p in problems {
        let sev = match p.severity {
            crate::diag::Severity::Error => "error",
            crate::diag::Severity::Warning => "warning",
            crate::diag::Severity::Note => "note",
        };
        let _ = writeln!(
            s,
            "<tr class=\"problem\" data-severity=\"{sev}\"><td>{sev}</td><td><code>{}</code></td><td>{}</td></tr>",
            esc(&p.path),
            esc(&p.reason)
        );
    }
    s.push_str("</tbody></table></section>\n");
}

fn overview(s: &mut String, report: &Report<'_>, shown: &[usize]) {
    let out = report.out;
    s.push_str("<section id=\"overview\"><h2>Overview</h2>\n");
    // Counts per rule and level.
    let mut per: BTreeMap<(&str, Level), [usize; 4]> = BTreeMap::new();
    for (i, d) in out.diagnostics.iter().enumerate() {
        let c = per.entry((d.rule.code(), d.level)).or_default();
        if report.suppressed(i) {
            c[3] += 1;
            continue;
        }
        c[0] += 1;
        match report.results[i].baseline_state {
            Some(stalecheck_sarif::BaselineState::New) => c[1] += 1,
            Some(_) => c[2] += 1,
            None => {}
        }
    }
    s.push_str("<table class=\"counts\"><thead><tr><th>Rule</th><th>Level</th><th class=\"num\">Findings</th>");
    if report.baseline {
        s.push_str("<th class=\"num\">New</th><th class=\"num\">Baselined</th>");
    }
    s.push_str("<th class=\"num\">Suppressed</th></tr></thead><tbody>\n");
    for ((rule, level), c) in &per {
        let _ = write!(
            s,
            "<tr><td><code>{rule}</code></td><td><span class=\"lvl {l}\">{l}</span></td><td class=\"num\">{}</td>",
            c[0],
            l = level_word(*level)
        );
        if report.baseline {
            let _ = write!(
                s,
                "<td class=\"num\">{}</td><td class=\"num\">{}</td>",
                c[1], c[2]
            );
        }
        let _ = writeln!(s, "<td class=\"num\">{}</td></tr>", c[3]);
    }
    if per.is_empty() {
        s.push_str("<tr><td colspan=\"6\" class=\"muted\">No findings.</td></tr>\n");
    }
    s.push_str("</tbody></table>\n");
    if report.baseline && !report.absent.is_empty() {
        let _ = writeln!(
            s,
            "<p>{} finding(s) of the baseline are fixed (absent from this scan).</p>",
            report.absent.len()
        );
    }
    package_chart(s, out, shown);
    // The findings table: written once, for JavaScript off, inside a `<noscript>` (with
    // JavaScript on the parser keeps it as one text node); the script parses it and shows it
    // sortable and filterable, a page of rows at a time, in `#findings`.
    s.push_str("<h3>Findings</h3>\n<input id=\"filter\" type=\"search\" placeholder=\"Filter: words that must all appear in a row (rule, level, class, method, file)\" hidden>\n");
    let mut head = String::from("<thead><tr><th data-sort=\"n\" class=\"num\">#</th><th data-sort=\"s\">Rule</th><th data-sort=\"s\">Level</th><th data-sort=\"n\" class=\"num\">Rank</th>");
    if report.baseline {
        head.push_str("<th data-sort=\"s\">State</th>");
    }
    head.push_str("<th data-sort=\"s\">Class</th><th data-sort=\"s\">Method</th><th data-sort=\"s\">Location</th></tr></thead>");
    let _ = write!(
        s,
        "<table id=\"findings\" hidden>{head}<tbody></tbody></table><p id=\"more-rows\" hidden><button type=\"button\">Show more rows</button></p>\n<noscript id=\"rows\"><table class=\"findings\">{head}<tbody>\n"
    );
    for (n, &i) in shown.iter().enumerate() {
        let d = &out.diagnostics[i];
        let n = n + 1;
        let lw = level_word(d.level);
        let _ = write!(
            s,
            "<tr><td><a href=\"#f{n}\">{n}</a></td><td>{}</td><td data-v=\"{}\"><span class=\"lvl {lw}\">{lw}</span></td><td>{}</td>",
            d.rule.code(),
            3 - d.level as u8,
            d.rank.map(|r| r.to_string()).unwrap_or_default()
        );
        if report.baseline {
            let st = report.results[i]
                .baseline_state
                .map(|st| st.as_str())
                .unwrap_or("");
            let _ = write!(s, "<td><span class=\"state {st}\">{st}</span></td>");
        }
        s.push_str("<td>");
        esc_into(s, &d.class);
        s.push_str("</td><td>");
        esc_into(s, &d.method);
        s.push_str("</td><td>");
        esc_into(s, &location(d));
        s.push_str("</td></tr>\n");
    }
    s.push_str("</tbody></table></noscript></section>\n");
}

fn location(d: &Diagnostic) -> String {
    match d.line {
        Some(l) => format!("{}:{l}", d.file),
        None => d.file.clone(),
    }
}

/// Findings per package: a horizontal bar chart of the 15 largest, the rest summed.
fn package_chart(s: &mut String, out: &crate::pipeline::ScanOutput, shown: &[usize]) {
    let mut per: HashMap<&str, usize> = HashMap::new();
    for &i in shown {
        let c = &out.diagnostics[i].class;
        let pkg = c.rfind('.').map(|p| &c[..p]).unwrap_or("(default package)");
        *per.entry(pkg).or_default() += 1;
    }
    if per.is_empty() {
        return;
    }
    let mut rows: Vec<(String, usize)> = per.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    if rows.len() > 15 {
        let rest: usize = rows[14..].iter().map(|r| r.1).sum();
        let n = rows.len() - 14;
        rows.truncate(14);
        rows.push((format!("({n} other packages)"), rest));
    }
    let max = rows.iter().map(|r| r.1).max().unwrap_or(1).max(1);
    let (label_w, bar_w, row_h) = (330, 520, 20);
    let h = rows.len() * row_h + 6;
    let _ = writeln!(
        s,
        "<h3>Findings per package</h3>\n<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"Findings per package\">",
        w = label_w + bar_w + 60
    );
    for (k, (pkg, n)) in rows.iter().enumerate() {
        let y = k * row_h + 3;
        let w = (n * bar_w).div_ceil(max);
        let shown_pkg = if pkg.chars().count() > 48 {
            let tail: String = pkg
                .chars()
                .rev()
                .take(46)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            format!("…{tail}")
        } else {
            pkg.clone()
        };
        let _ = writeln!(
            s,
            "<g><title>{} : {n}</title><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><rect x=\"{label_w}\" y=\"{y}\" width=\"{w}\" height=\"{}\"/><text x=\"{}\" y=\"{}\">{n}</text></g>",
            esc(pkg),
            label_w - 6,
            y + 13,
            esc(&shown_pkg),
            row_h - 5,
            label_w + w + 4,
            y + 13
        );
    }
    s.push_str("</svg>\n");
}

/// Whether a `stale` step ends the critical section it is in (a release) rather than begins a
/// new one (an acquisition, or `wait()` releasing and re-acquiring).
fn is_release(st: &Step) -> bool {
    st.kind == StepKind::Stale
        && !st.message.contains("re-acquires")
        && (st.message.contains("release")
            || st.message.contains("leaves")
            || st.message.contains("of its own"))
}

/// The per-finding section.
fn finding(
    s: &mut String,
    shapes: &mut Shapes,
    n: usize,
    d: &Diagnostic,
    state: Option<&str>,
    sources: &mut super::SourceFiles,
) {
    let lw = level_word(d.level);
    let _ = write!(
        s,
        "<section class=\"finding\" id=\"f{n}\" data-rule=\"{}\"><h2><a href=\"#f{n}\">#{n}</a> <span class=\"lvl {lw}\">{lw}</span> <code>{}</code>",
        d.rule.code(),
        d.rule.code()
    );
    if let Some(st) = state {
        let _ = write!(s, " <span class=\"state {st}\">[{st}]</span>");
    }
    s.push_str("</h2>\n<p class=\"headline\">");
    esc_into(s, &d.message);
    s.push_str("</p>\n<p class=\"where\">in <code>");
    esc_into(s, &format!("{}.{}{}", d.class, d.method, d.descriptor));
    s.push_str("</code> at <code>");
    esc_into(s, &location(d));
    s.push_str("</code></p>\n");
    let lines: Option<Vec<&str>> = d
        .source
        .as_ref()
        .and_then(|p| sources.text(p))
        .map(|t| t.lines().collect())
        .filter(|l: &Vec<&str>| !l.is_empty());
    // A step's source line is shown when it is in the finding's own file and that was found.
    let has_src = |st: &Step| -> bool {
        st.file.is_none()
            && st
                .line
                .zip(lines.as_ref())
                .is_some_and(|(l, ls)| l >= 1 && (l as usize) <= ls.len())
    };
    // The steps: the same list as the text and the SARIF code flow.
    s.push_str("<ol class=\"steps\">\n");
    for (k, st) in d.steps.iter().enumerate() {
        let kind = step_name(st.kind);
        let _ = write!(
            s,
            "<li id=\"f{n}-s{}\"{} data-kind=\"{kind}{}\">",
            k + 1,
            st.line
                .map(|l| format!(" data-line=\"{l}\""))
                .unwrap_or_default(),
            if st.other_thread { " other" } else { "" }
        );
        let place = st.place(&d.method);
        if has_src(st) {
            let _ = write!(
                s,
                "<a href=\"#f{n}-L{}\">{}</a> ",
                st.line.unwrap_or(0),
                esc(&place)
            );
        } else {
            let _ = write!(s, "<span class=\"muted\">{}</span> ", esc(&place));
        }
        let _ = write!(s, "<b>{kind}</b> <span>");
        esc_into(s, &st.message);
        s.push_str("</span></li>\n");
    }
    s.push_str("</ol>\n");
    diagram(s, shapes, n, d, lines.is_some());
    if let Some(ls) = &lines {
        excerpt(s, n, d, ls, &has_src);
    } else if d.source.is_none() {
        s.push_str("<p class=\"muted\">The source file was not found (pass --source-root): the steps are placed by line, bytecode offset and method.</p>\n");
    }
    s.push_str("</section>\n");
}

/// `method @pc`: where a step is in the bytecode (its byte offset, as `javap -c` prints it).
fn insn_place(d: &Diagnostic, st: &Step) -> Option<String> {
    let m = st.method.as_deref().unwrap_or(&d.method);
    Some(match st.pc {
        Some(pc) => format!("{m} @{pc}"),
        None => m.to_string(),
    })
}

/// The source cut to the lines that matter: each step's line with one line of context either
/// side, gaps elided; the step lines marked with their kind.
fn excerpt(s: &mut String, n: usize, d: &Diagnostic, ls: &[&str], has_src: &dyn Fn(&Step) -> bool) {
    let mut marks: BTreeMap<u32, Vec<(&str, bool)>> = BTreeMap::new();
    for st in d.steps.iter().filter(|st| has_src(st)) {
        if let Some(l) = st.line {
            marks
                .entry(l)
                .or_default()
                .push((step_name(st.kind), st.other_thread));
        }
    }
    if marks.is_empty() {
        return;
    }
    let show = super::excerpt_lines(marks.keys().copied(), ls.len() as u32);
    // Cut the indentation the shown lines share (tabs count as one column, like spaces).
    let indent = show
        .iter()
        .map(|&l| ls[l as usize - 1])
        .filter(|t| !t.trim().is_empty())
        .map(|t| t.len() - t.trim_start().len())
        .min()
        .unwrap_or(0);
    s.push_str("<pre class=\"src\">");
    let mut prev = 0u32;
    for l in show {
        if prev != 0 && l > prev + 1 {
            s.push_str("<i>⋮</i>\n");
        }
        prev = l;
        let line = ls[l as usize - 1].trim_end();
        let text = esc(line.get(indent.min(line.len())..).unwrap_or(line));
        match marks.get(&l) {
            Some(kinds) => {
                let first = kinds[0];
                let _ = write!(
                    s,
                    "<b id=\"f{n}-L{l}\"><i>{l}</i>{text}<em{}>← {}</em></b>",
                    if first.1 { " class=\"k-other\"" } else { "" },
                    kinds
                        .iter()
                        .map(|(k, o)| if *o {
                            format!("{k} (other thread)")
                        } else {
                            k.to_string()
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            None => {
                let _ = writeln!(s, "<i>{l}</i>{text}");
            }
        }
    }
    s.push_str("</pre>\n");
}

/// One column of the diagram: a step, or the concurrent write the finding is about.
enum Slot<'a> {
    Step(usize, &'a Step),
    Write,
}

/// The shapes of the diagrams, drawn once each as a `<symbol>` (`#dK`) that every diagram of
/// that shape uses: thousands of findings share a handful of shapes.
#[derive(Default)]
struct Shapes {
    ids: HashMap<String, usize>,
    symbols: String,
}

const DX: usize = 118;
const X0: usize = 220;
const YA: usize = 46;
const YB: usize = 132;
const HEIGHT: usize = 180;

fn col_x(c: usize) -> usize {
    X0 + c * DX
}

/// The columns of a finding in execution order, with the concurrent write placed where it can
/// break the finding: before the step that begins a new critical section, after one that ends
/// it, or between two lock views; none when the steps have the other thread's own step.
fn slots(d: &Diagnostic) -> Vec<Slot<'_>> {
    let mut slots: Vec<Slot> = d
        .steps
        .iter()
        .enumerate()
        .map(|(i, st)| Slot::Step(i, st))
        .collect();
    if !d.steps.iter().any(|st| st.other_thread) {
        let at = d
            .steps
            .iter()
            .position(|st| st.kind == StepKind::Stale)
            .map(|i| if is_release(&d.steps[i]) { i + 1 } else { i })
            .or_else(|| {
                d.steps
                    .iter()
                    .enumerate()
                    .filter(|(_, st)| st.kind == StepKind::Lock)
                    .nth(1)
                    .map(|(i, _)| i)
            })
            .or_else(|| d.steps.iter().position(|st| st.kind == StepKind::Use))
            .unwrap_or(d.steps.len());
        slots.insert(at, Slot::Write);
    }
    slots
}

/// The critical sections of the reporting thread: runs of columns `[first, last]`.
fn boxes(slots: &[Slot]) -> Vec<(usize, usize)> {
    let mut boxes = Vec::new();
    // (first column, opened by an acquisition: the steps after it stay inside)
    let mut open: Option<(usize, bool)> = None;
    let mut last_own: Option<usize> = None;
    for (c, slot) in slots.iter().enumerate() {
        let st = match slot {
            Slot::Step(_, st) if !st.other_thread => st,
            // The other thread runs between two critical sections of this one.
            _ => {
                if let (Some((b, _)), Some(l)) = (open.take(), last_own) {
                    boxes.push((b, l));
                }
                continue;
            }
        };
        match st.kind {
            StepKind::Read | StepKind::Access => {
                if open.is_none() {
                    open = Some((c, false));
                }
            }
            StepKind::Lock => {
                if let (Some((b, _)), Some(l)) = (open.take(), last_own) {
                    boxes.push((b, l));
                }
                open = Some((c, true));
            }
            StepKind::Stale if is_release(st) => {
                if let Some((b, _)) = open.take() {
                    boxes.push((b, c));
                }
            }
            StepKind::Stale => {
                if let (Some((b, _)), Some(l)) = (open.take(), last_own) {
                    boxes.push((b, l));
                }
                open = Some((c, true));
            }
            StepKind::Use => {
                if let (Some((b, false)), Some(l)) = (open, last_own) {
                    boxes.push((b, l));
                    open = None;
                }
            }
        }
        last_own = Some(c);
    }
    if let (Some((b, _)), Some(l)) = (open, last_own) {
        boxes.push((b, l));
    }
    boxes
}

impl Shapes {
    /// The symbol id of a diagram's shape: lanes, critical sections, the value's path, the
    /// concurrent write and the step nodes (kind and number); drawn the first time it is seen.
    fn id(&mut self, slots: &[Slot], named: bool) -> (usize, usize) {
        let width = X0 + slots.len() * DX;
        let mut key: String = slots
            .iter()
            .map(|sl| match sl {
                Slot::Write => "W".to_string(),
                Slot::Step(_, st) => format!(
                    "{}{}{}",
                    step_name(st.kind),
                    if st.other_thread { "o" } else { "" },
                    if is_release(st) { "r" } else { "" }
                ),
            })
            .collect::<Vec<_>>()
            .join(",");
        if !named {
            key.push_str(",unnamed");
        }
        if let Some(&id) = self.ids.get(&key) {
            return (id, width);
        }
        let id = self.ids.len() + 1;
        self.ids.insert(key, id);
        let s = &mut self.symbols;
        let _ = write!(s, "<symbol id=\"d{id}\" viewBox=\"0 0 {width} {HEIGHT}\">");
        for (y, name) in [(YA, "this thread"), (YB, "another thread")] {
            let _ = write!(
                s,
                "<line class=\"lane\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/>",
                X0 - 56,
                width - 10
            );
            // Without thread names (the per-method rules), the lanes' names are the shape's.
            if !named {
                let _ = write!(
                    s,
                    "<text class=\"tn\" x=\"6\" y=\"{}\">{name}</text>",
                    y + 4
                );
            }
        }
        for (b, e) in boxes(slots) {
            let _ = write!(
                s,
                "<rect class=\"cs\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"52\"/><text class=\"sub\" x=\"{}\" y=\"{}\">critical section</text>",
                col_x(b) - 46,
                YA - 26,
                col_x(e) - col_x(b) + 92,
                (col_x(b) + col_x(e)) / 2,
                YA - 30
            );
        }
        let own: Vec<usize> = slots
            .iter()
            .enumerate()
            .filter(|(_, sl)| matches!(sl, Slot::Step(_, st) if !st.other_thread))
            .map(|(c, _)| c)
            .collect();
        for w in own.windows(2) {
            let _ = write!(
                s,
                "<path class=\"flow\" d=\"M{},{YA}L{},{YA}\"/>",
                col_x(w[0]) + 11,
                col_x(w[1]) - 12
            );
        }
        for (c, slot) in slots.iter().enumerate() {
            let cx = col_x(c);
            let next_own = own.iter().copied().find(|&o| o > c);
            let y = match slot {
                Slot::Write => {
                    let _ = write!(
                        s,
                        "<rect class=\"wr\" x=\"{}\" y=\"{}\" width=\"92\" height=\"30\"/><text class=\"lbl\" x=\"{cx}\" y=\"{}\">write</text>",
                        cx - 46,
                        YB - 15,
                        YB + 4
                    );
                    YB - 16
                }
                Slot::Step(i, st) => {
                    let (y, kind) = if st.other_thread {
                        (YB, "other")
                    } else {
                        (YA, step_name(st.kind))
                    };
                    let _ = write!(
                        s,
                        "<circle class=\"k-{kind}\" cx=\"{cx}\" cy=\"{y}\" r=\"11\"/><text class=\"n\" x=\"{cx}\" y=\"{}\">{}</text><text class=\"lbl\" x=\"{cx}\" y=\"{}\">{}</text>",
                        y + 4,
                        i + 1,
                        y + 28,
                        step_name(st.kind)
                    );
                    if !st.other_thread {
                        continue;
                    }
                    YB - 12
                }
            };
            // The concurrent write reaches the value at the next step of this thread.
            if let Some(o) = next_own {
                let _ = write!(
                    s,
                    "<path class=\"race\" d=\"M{cx},{y}L{},{}\"/>",
                    col_x(o) - 6,
                    YA + 12
                );
            }
        }
        s.push_str("</symbol>");
        (id, width)
    }
}

/// The interleaving diagram: lane 1 the thread running the method, lane 2 the concurrent
/// thread; the method's critical sections as boxes on lane 1, the other thread's write (or
/// view) between them on lane 2, arrows along the value's path and from the write to the step
/// it breaks (the shared shape, [`Shapes`]); over it the thread names and, per step, a link to
/// its entry in the step list (which links to the source line) labelled with the line, or the
/// method and bytecode offset when there is no source.
fn diagram(s: &mut String, shapes: &mut Shapes, n: usize, d: &Diagnostic, with_source: bool) {
    if d.steps.is_empty() {
        return;
    }
    let slots = slots(d);
    let named = !d.threads.is_empty();
    let (id, width) = shapes.id(&slots, named);
    let _ = write!(
        s,
        "<svg class=\"diagram\" viewBox=\"0 0 {width} {HEIGHT}\" width=\"{width}\" height=\"{HEIGHT}\" role=\"img\"><use href=\"#d{id}\"/>"
    );
    if named {
        let t2 = d
            .threads
            .get(1)
            .cloned()
            .unwrap_or_else(|| "another thread".to_string());
        for (y, name) in [(YA, &d.threads[0]), (YB, &t2)] {
            let short: String = if name.chars().count() > 22 {
                name.chars().take(21).chain(['…']).collect()
            } else {
                name.clone()
            };
            let _ = write!(s, "<text class=\"tn\" x=\"6\" y=\"{}\">", y + 4);
            if short != *name {
                let _ = write!(s, "<title>{}</title>", esc(name));
            }
            let _ = write!(s, "{}</text>", esc(&short));
        }
    }
    for (c, slot) in slots.iter().enumerate() {
        let Slot::Step(i, st) = slot else { continue };
        let cx = col_x(c);
        let y = if st.other_thread { YB } else { YA };
        // A loop brought execution back to this step: say so on the arrow that reaches it.
        let prev_own = slots[..c]
            .iter()
            .rposition(|sl| matches!(sl, Slot::Step(_, p) if !p.other_thread));
        if let (true, Some(p)) = (st.message.contains("back edge"), prev_own) {
            let _ = write!(
                s,
                "<text class=\"sub\" x=\"{}\" y=\"{}\">↺ loop back edge</text>",
                (col_x(p) + cx) / 2,
                YA - 6
            );
        }
        let place = if with_source && st.file.is_none() {
            st.line.map(|l| format!("line {l}"))
        } else {
            None
        }
        .unwrap_or_else(|| match (&st.file, st.line) {
            (Some(f), Some(l)) => format!("{}:{l}", f.rsplit('/').next().unwrap_or(f)),
            _ => insn_place(d, st).unwrap_or_default(),
        });
        let place: String = if place.chars().count() > 20 {
            place.chars().take(19).chain(['…']).collect()
        } else {
            place
        };
        let _ = write!(
            s,
            "<a href=\"#f{n}-s{}\"><text class=\"sub\" x=\"{cx}\" y=\"{}\">{}</text></a>",
            i + 1,
            y + 42,
            esc(&place)
        );
    }
    s.push_str("</svg>\n");
}

#[cfg(test)]
mod tests {
    use super::esc;
    use crate::explain::{Diagnostic, Step, StepKind};

    fn nasty() -> Diagnostic {
        Diagnostic {
            rule: crate::rules::RuleId::StaleValue,
            level: crate::rules::Level::Warning,
            message: "field `A<script>alert(1)</script>.x` & \"y\" (line 3)".into(),
            class: "p.A<b>".into(),
            method: "<init>".into(),
            descriptor: "(Ljava/util/List<*>;)V".into(),
            file: "p/A&B.java".into(),
            source: None,
            source_root: None,
            line: Some(5),
            age: Some(1),
            steps: vec![
                Step {
                    pc: Some(4),
                    ..Step::here(
                        StepKind::Read,
                        Some(3),
                        Some(2),
                        "read <here> & 'there'".into(),
                    )
                },
                Step {
                    pc: Some(14),
                    ..Step::here(
                        StepKind::Stale,
                        None,
                        Some(7),
                        "a lock is acquired here".into(),
                    )
                },
                Step {
                    pc: Some(20),
                    ..Step::here(StepKind::Use, Some(5), Some(9), "used".into())
                },
            ],
            threads: vec!["thread <main> & co".into()],
            evidence: None,
            rank: Some(50),
        }
    }

    #[test]
    fn names_and_messages_are_escaped_and_the_diagram_is_well_formed() {
        let mut s = String::new();
        let mut shapes = super::Shapes::default();
        super::finding(
            &mut s,
            &mut shapes,
            1,
            &nasty(),
            Some("new"),
            &mut Default::default(),
        );
        assert!(!s.contains("<script"), "{s}");
        assert!(!s.contains("<b>.") && !s.contains("A<b>"), "{s}");
        assert!(
            s.contains("p.A&lt;b&gt;.&lt;init&gt;(Ljava/util/List&lt;*&gt;;)V"),
            "{s}"
        );
        assert!(s.contains("read &lt;here&gt; &amp; &#39;there&#39;"), "{s}");
        // The diagram and its shape parse as XML; without source the steps are placed by
        // method and bytecode offset.
        let start = s.find("<svg class=\"diagram\"").unwrap();
        let end = s[start..].find("</svg>").unwrap() + start + 6;
        let svg = roxmltree::Document::parse(&s[start..end]).expect("well-formed diagram");
        let labels: Vec<&str> = svg
            .descendants()
            .filter(|n| n.has_tag_name("a"))
            .filter_map(|a| a.first_element_child()?.text())
            .collect();
        assert_eq!(
            labels,
            ["&lt;init&gt; @4", "&lt;init&gt; @14", "&lt;init&gt; @20"]
                .map(|l| l.replace("&lt;", "<").replace("&gt;", ">"))
        );
        let symbols = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\">{}</svg>",
            shapes.symbols
        );
        let sym = roxmltree::Document::parse(&symbols).expect("well-formed shapes");
        assert_eq!(
            sym.descendants()
                .filter(|n| n.has_tag_name("circle"))
                .count(),
            3
        );
        assert!(s.contains("thread &lt;main&gt; &amp; co"), "{s}");
    }

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc("a<b>&\"c\"'d'"),
            "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;"
        );
        assert_eq!(esc("x\u{1}y"), "x\u{fffd}y");
    }
}
