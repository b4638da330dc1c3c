def report = new File(basedir, 'target/stalecheck.sarif')
assert report.isFile() : "no report at $report"
def results = (report.text =~ /"ruleId":\s*"causal-stale-value"/).count
assert results == 1 : "expected 1 causal-stale-value result, found $results"
assert report.text =~ /"uri":\s*"src\/main\/java\/demo\/Counter\.java"/
def log = new File(basedir, 'build.log').text
assert log.contains('stalecheck found findings at level warning or above in fail-on-bug. See the report at: ' + report.absolutePath) : "the failure does not name the report"
assert new File(basedir, 'target/stalecheck.status').text.trim() == 'findings'
// The HTML report next to the SARIF file, with the finding and its source line marked.
def html = new File(basedir, 'target/stalecheck.html')
assert html.isFile() : "no HTML report at $html"
def sections = (html.text =~ /<section class="finding"/).count
assert sections == 1 : "expected 1 finding in the HTML report, found $sections"
assert html.text =~ /<b id="f1-L[0-9]+"><i>[0-9]+<\/i>/ : "the HTML report marks no source line"
assert log.contains('stalecheck: HTML report: ' + html.absolutePath) : "the log does not name the HTML report"
return true
