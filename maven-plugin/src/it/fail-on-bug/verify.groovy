def report = new File(basedir, 'target/stalecheck.sarif')
assert report.isFile() : "no report at $report"
def results = (report.text =~ /"ruleId":\s*"stale-value"/).count
assert results == 1 : "expected 1 stale-value result, found $results"
assert report.text =~ /"uri":\s*"src\/main\/java\/demo\/Counter\.java"/
def log = new File(basedir, 'build.log').text
assert log.contains('stalecheck found findings at level warning or above in fail-on-bug. See the report at: ' + report.absolutePath) : "the failure does not name the report"
assert new File(basedir, 'target/stalecheck.status').text.trim() == 'findings'
return true
