assert new File(basedir, 'a/target/stalecheck.sarif').isFile()
assert new File(basedir, 'b/target/stalecheck.sarif').isFile()
assert new File(basedir, 'a/target/stalecheck.status').text.trim() == 'findings'
assert new File(basedir, 'b/target/stalecheck.status').text.trim() == 'clean'
def classpath = new File(basedir, 'b/target/stalecheck-classpath.txt')
assert classpath.isFile() && classpath.text.contains('/a/target/') : "b's classpath (with a) was not passed as an argument file"
assert !(new File(basedir, 'b/target/stalecheck.sarif').text =~ /"ruleId":\s*"stale-value"/) : "a's bug reported in b (classpath entries must not be reported)"
// The summary cache: `stalecheck-cache` next to the local repository (the ITs' target/local-repo),
// holding what the scanner made of a's jar on b's classpath.
def cacheArg = new File(basedir, 'b/target/stalecheck.sarif').text =~ /"--cache",\s*"([^"]*stalecheck-cache)"/
assert cacheArg.find() : "b's scan was not given the summary cache next to the local repository"
def cacheDir = new File(cacheArg.group(1))
if (classpath.text.contains('.jar')) {
    assert cacheDir.listFiles()?.any { it.name.endsWith('.entry') } : "no entry in the summary cache $cacheDir"
}
def merged = new File(basedir, 'target/stalecheck-aggregate.sarif')
assert merged.isFile() : "no merged report at $merged"
def text = merged.text
def results = (text =~ /"ruleId":\s*"stale-value"/).count
assert results == 2 : "expected a's and c's stale-value results in the merged report, found $results"
assert text =~ /"uri":\s*"a\/src\/main\/java\/a\/Counter\.java"/ : "a's source path is not relative to the reactor root"
assert text =~ /"uri":\s*"b\/src\/main\/java\/b\/Clean\.java"/ : "b's results (its note on Clean.get) are not in the merged report"
assert new File(basedir, 'c/target/stalecheck.status').text.trim() == 'findings'
// Every physical location of the merged report resolves to a file under the reactor root.
def script = new File(basedir, '../../../../tests/scripts/sarif-locations.py').canonicalPath
def walk = ['python3', script, merged.absolutePath, basedir.absolutePath].execute()
def out = new StringBuffer(), err = new StringBuffer()
walk.waitForProcessOutput(out, err)
println out
assert walk.exitValue() == 0 : "locations that lead nowhere:\n$err"
def log = new File(basedir, 'build.log').text
assert log.contains('stalecheck found findings in a (') && log.contains('Merged report: ' + merged.absolutePath)
return true
