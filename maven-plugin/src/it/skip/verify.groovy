assert !new File(basedir, 'target/stalecheck.sarif').exists() : "a report although skipped"
assert new File(basedir, 'build.log').text.contains('stalecheck: skipped')
assert new File(basedir, 'target/classes/demo/Counter.class').isFile() : "the module was not built"
return true
