// build.log holds the four invocations one after the other.
def log = new File(basedir, 'build.log').text
assert log.contains('stalecheck: no baseline yet') : "the first run does not say there is no baseline yet"
assert log.contains('mvn stalecheck:baseline') : "the first run does not name the goal that creates the baseline"
def baseline = new File(basedir, 'stalecheck-baseline.sarif')
assert baseline.isFile() && baseline.text.contains('Counter') && !baseline.text.contains('Gauge')
// The findings as Maven prints compiler messages: [WARNING] /abs/File.java:[line,column] message [rule]
def counter = (log =~ /\[WARNING\] \S*src\/main\/java\/demo\/Counter\.java:\[15,\d+\] .*\[causal-stale-value\]/).count
def gauge = (log =~ /\[WARNING\] \S*src\/main\/java\/demo\/Gauge\.java:\[13,\d+\] .*\[causal-stale-value\]/).count
assert counter == 1 : "the planted bug should be printed once (run 2; baselined in run 4), found $counter"
assert gauge == 1 : "the new bug should be printed once (run 4), found $gauge"
assert log.contains('stalecheck found new findings') : "the last build did not fail on the new finding"
assert (log =~ /(?m)^\[INFO\] stalecheck: .*baseline/).count >= 1 : "no summary line of the binary with the baselined count"
return true
