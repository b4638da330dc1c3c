def baseline = new File(basedir, 'stalecheck-baseline.sarif')
assert baseline.isFile() && baseline.length() > 0 : "no baseline written"
assert (baseline.text =~ /"ruleId":\s*"causal-stale-value"/).count >= 1 : "the baseline lacks the known finding"
assert !baseline.text.contains('Gauge') : "the baseline holds the bug added after it"
def report = new File(basedir, 'target/stalecheck.sarif')
assert report.text.contains('Gauge') : "the last report lacks the new bug"
assert new File(basedir, 'target/stalecheck.status').text.trim() == 'findings'
def log = new File(basedir, 'build.log').text
assert log.contains('stalecheck found new findings') : "the last build did not fail on the new finding"
return true
