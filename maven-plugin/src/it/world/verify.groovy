def report = new File(basedir, 'target/stalecheck.sarif')
assert report.isFile() : "no report at $report"
def args = report.text.replaceAll(/\s/, '')
assert args.contains('"--world","application"') : "the scan was not told --world application"
return true
