def log = new File(basedir, 'build.log').text
assert log.contains('the scanner binary io.github.stalecheck:stalecheck-cli:exe:') : "the error does not name the coordinates"
assert log.contains('could not be resolved from the project\'s repositories')
assert log.contains('<executable>') && log.contains('STALECHECK environment variable') : "the error does not say how to override"
return true
