def log = new File(basedir, 'build.log').text
assert log.contains('/nonexistent/stalecheck (from the STALECHECK environment variable) does not exist')
assert log.contains('cargo install')
return true
