def report = new File(basedir, 'target/stalecheck.sarif')
assert report.isFile() : "no report at $report"
def text = report.text
assert text.contains('"version": "2.1.0"')
assert !(text =~ /"ruleId":\s*"stale-value"/) : "a stale-value result for a correct class"
// the note on Clean.get() points at the source, relative to the project root
assert text =~ /"uri":\s*"src\/main\/java\/demo\/Clean\.java"/ : "no source path relative to the project root"
def log = new File(basedir, 'build.log').text
assert log.contains('stalecheck: no findings at level warning or above. Report: ')
assert new File(basedir, 'target/stalecheck.status').text.trim() == 'clean'
assert !new File(basedir, 'target/stalecheck.html').exists() : "htmlReport = false still wrote the HTML report"
return true
