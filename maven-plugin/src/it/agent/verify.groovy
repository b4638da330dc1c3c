def target = new File(basedir, 'target')
def sections = new File(target, 'stalecheck-sections.json')
assert sections.isFile() : "prepare-agent wrote no sections file"
assert sections.text.contains('"origin": "causal-stale-value"') : "no causal-stale-value section"
def log = new File(basedir, 'build.log').text
assert log.contains('stalecheck: agent attached: argLine = -javaagent:') : "the agent was not attached"
def report = new File(target, 'stalecheck-agent.json')
assert report.isFile() : "the test JVM wrote no agent report (was the agent attached?)"
assert report.text.contains('"kind": "atomicity-violation"') : "the agent saw no violation:\n" + report.text
def sarif = new File(target, 'stalecheck.sarif').text
assert sarif.contains('"stalecheck/confirmed"') : "the finding is not marked confirmed"
assert sarif =~ /"name":\s*"stalecheck-agent"/ : "the agent's run is not in the SARIF report"
assert sarif =~ /"name":\s*"stalecheck"/ : "stalecheck's run is not in the SARIF report"
return true
