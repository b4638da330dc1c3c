#!/usr/bin/env bash
# Real-build tests of the Gradle plugin: builds the plugin jar, copies the fixture projects of
# test/projects/ to a scratch directory and runs `gradle` on them as a process (TestKit does not
# work with Debian's Gradle layout). Every check prints `ok - ...` or `FAIL - ...`; the script
# exits 1 when any check failed.
#
#   STALECHECK=/path/to/stalecheck gradle-plugin/test/run.sh
#
# STALECHECK defaults to target/release/stalecheck of this repository. It is not handed to the
# builds: packaging/publish-binary.sh publishes it (stripped) into a Maven repository directory in
# the scratch directory, the test projects name that repository, and the plugin resolves the
# binary from it; the builds run with no STALECHECK variable and no `stalecheck` on PATH.
# GRADLE: the gradle command (default `gradle`, Debian's 4.4.1 in CI). KEEP=1 keeps the scratch
# directory. Also compiles the plugin against the current Gradle API (check-api.sh, Maven Central).
#
# The failOn, baseline and multi-project tests need a binary with the reporting features
# (`scan --fail-on`, `scan --baseline`, `stalecheck baseline`, `stalecheck merge`); without them they FAIL.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
STALECHECK="${STALECHECK:-$repo/target/release/stalecheck}"
GRADLE="${GRADLE:-gradle}"
if [ ! -x "$STALECHECK" ]; then
    echo "run.sh: no stalecheck binary at $STALECHECK (cargo build --release -p stalecheck, or set STALECHECK)" >&2
    exit 2
fi
STALECHECK="$(cd "$(dirname "$STALECHECK")" && pwd)/$(basename "$STALECHECK")"
export STALECHECK
command -v "$GRADLE" >/dev/null || { echo "run.sh: no '$GRADLE' command (apt-get install gradle)" >&2; exit 2; }

"$here/../build.sh" || exit 2
jar="$here/../build/libs/stalecheck-gradle-plugin.jar"

work="$(mktemp -d "${TMPDIR:-/tmp}/stalecheck-gradle-test.XXXXXX")"
# The binary under test as the Maven artifact the plugin resolves by default.
m2repo="$work/stalecheck-repo"
"$repo/packaging/publish-binary.sh" --repository "$m2repo" --binary "$STALECHECK" --strip >/dev/null || exit 2
# The run-time agent (stalecheck { agent { } }) as io.github.stalecheck:stalecheck-agent there too.
# One agent build at a time: the other plugin's test, run beside this one, builds it in the
# same directory (a jar rewritten while it is installed is missing or truncated).
mkdir -p "$repo/target"
exec 9>"$repo/target/agent-build.lock"
flock 9
mvn -B -q -f "$repo/agent/pom.xml" package -DskipTests || exit 2
agent_version=$(sed -n 's:^  <version>\(.*\)</version>:\1:p' "$repo/agent/pom.xml" | head -n 1)
mvn -B -q -ntp install:install-file -Dfile="$repo/agent/target/stalecheck-agent.jar" \
    -DgroupId=io.github.stalecheck -DartifactId=stalecheck-agent -Dversion="$agent_version" -Dpackaging=jar \
    -DgeneratePom=true -DlocalRepositoryPath="$m2repo" >/dev/null || exit 2
flock -u 9
exec 9>&-
# The builds see no STALECHECK and no stalecheck on PATH.
binary="$STALECHECK"
unset STALECHECK
clean_path=""
IFS=: read -ra path_dirs <<<"$PATH"
for d in "${path_dirs[@]}"; do
    [ -n "$d" ] && [ ! -x "$d/stalecheck" ] && clean_path="${clean_path:+$clean_path:}$d"
done
export PATH="$clean_path"
sarif_locations="$repo/tests/scripts/sarif-locations.py"
# An own Gradle user home: no state from other builds; its daemon is stopped at the end.
export GRADLE_USER_HOME="$work/gradle-home"
cleanup() {
    "$GRADLE" --stop >/dev/null 2>&1 || true
    if [ "${KEEP:-0}" = 1 ]; then echo "scratch directory kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

failures=0
checks=0
ok() { checks=$((checks + 1)); echo "ok - $1"; }
fail() {
    checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL - $1"
    if [ -f "$work/last.log" ]; then sed 's/^/    | /' "$work/last.log" | tail -n 40; fi
}

# copy NAME: a fresh copy of test/projects/NAME with the plugin jar filled in; prints its path.
copy() {
    rm -rf "$work/$1"
    cp -r "$here/projects/$1" "$work/$1"
    find "$work/$1" -name '*.gradle' -exec sed -i -e "s#@PLUGIN_JAR@#$jar#g" -e "s#@STALECHECK_REPO@#file://$m2repo#g" {} +
    echo "$work/$1"
}

# gradle DIR ARGS...: runs gradle in DIR, output in $work/last.log; returns gradle's exit code.
gradle_in() {
    local dir="$1"; shift
    (cd "$dir" && "$GRADLE" --daemon --console=plain "$@") >"$work/last.log" 2>&1
}

# expect_success|expect_failure DESCRIPTION DIR ARGS...
expect_success() {
    local what="$1"; shift
    if gradle_in "$@"; then ok "$what"; else fail "$what (gradle failed)"; fi
}
expect_failure() {
    local what="$1"; shift
    if gradle_in "$@"; then fail "$what (gradle succeeded)"; else ok "$what"; fi
}
# log_has DESCRIPTION TEXT: the last gradle output contains TEXT (fixed string).
log_has() {
    if grep -qF -- "$2" "$work/last.log"; then ok "$1"; else fail "$1 (no '$2' in the output)"; fi
}
log_lacks() {
    if grep -qF -- "$2" "$work/last.log"; then fail "$1 ('$2' in the output)"; else ok "$1"; fi
}
# count_results FILE RULE: how many results of RULE the SARIF file has.
count_results() {
    local n
    n=$(grep -cE "\"ruleId\": *\"$2\"" "$1" 2>/dev/null)
    echo "${n:-0}"
}
file_has() {
    if grep -qE -- "$3" "$2" 2>/dev/null; then ok "$1"; else fail "$1 (no /$3/ in $2)"; fi
}

echo "# stalecheck: $binary, published to $m2repo"
echo "# gradle: $("$GRADLE" --version 2>/dev/null | sed -n '/^Gradle/p')"
reporting=1
"$binary" merge --help >/dev/null 2>&1 || reporting=0
console=1
"$binary" scan --help 2>/dev/null | grep -q -- '--console' || console=0
if [ "$reporting" = 0 ]; then
    echo "# NOTE: this stalecheck binary has no 'merge'/'baseline' subcommands (issue 5):"
    echo "#       the failOn, baseline and multi-project tests below will FAIL."
fi

# --- single project: clean, up to date, a bug fails check, ignoreFailures, per-source-set tasks
echo "# single project"
p="$(copy single)"
expect_success "clean project: gradle check passes" "$p" check
log_has "clean project: staleCheckMain ran as part of check" ":staleCheckMain"
log_has "clean project: the console summary names the report" "Report: file://$p/build/reports/stalecheck/main.sarif"
report="$p/build/reports/stalecheck/main.sarif"
if [ -f "$report" ] && [ "$(count_results "$report" stale-value)" = 0 ]; then
    ok "clean project: main.sarif written, no stale-value result"
else
    fail "clean project: main.sarif missing or with a stale-value result"
fi
log_lacks "default source sets: staleCheckTest is not part of check" ":staleCheckTest"
expect_success "second run" "$p" check
log_has "second run: staleCheckMain is up to date" ":staleCheckMain UP-TO-DATE"

expect_success "build cache: clean check stores the scan" "$p" --build-cache clean check
expect_success "build cache: clean check again" "$p" --build-cache clean check
log_has "build cache: the scan comes from the cache" ":staleCheckMain FROM-CACHE"
moved="$work/single-moved"
rm -rf "$moved" && cp -r "$p" "$moved" && rm -rf "$moved/build" "$moved/.gradle"
expect_success "build cache: the same project in another directory" "$moved" --build-cache check
log_has "build cache: relocatable, the scan comes from the cache there too" ":staleCheckMain FROM-CACHE"

cp "$here/extra/Counter.java" "$p/src/main/java/demo/"
expect_failure "a stale-value bug fails gradle check" "$p" check
log_has "the failure names the report" "See the report at: file://$p/build/reports/stalecheck/main.sarif"
log_has "the failure comes from staleCheckMain" "Execution failed for task ':staleCheckMain'"
if [ "$(count_results "$report" stale-value)" = 1 ]; then ok "the report has the stale-value result"; else fail "the report has $(count_results "$report" stale-value) stale-value results, expected 1"; fi
file_has "the report points at the source file relative to the root" "$report" '"uri": *"src/main/java/demo/Counter.java"'
html="$p/build/reports/stalecheck/main.html"
# As many findings as the SARIF file has results (rules = ['all']), the stale value among them.
if [ -f "$html" ] && [ "$(grep -c '<section class="finding"' "$html")" = "$(grep -c '"ruleId":' "$report")" ] \
        && grep -q 'data-rule="stale-value"' "$html"; then
    ok "the HTML report is written next to the SARIF file, with the SARIF file's findings"
else
    fail "no HTML report with the SARIF file's findings at $html"
fi
file_has "the HTML report shows the finding's source line, marked" "$html" '<b id="f1-L[0-9]+"><i>[0-9]+</i>.*count'
log_has "the log names the HTML report" "HTML report: file://$html"

expect_success "ignoreFailures = true: gradle check passes with the bug" "$p" check -PignoreStale
log_has "ignoreFailures: the finding is still reported" "stalecheck found findings"
expect_success "ignoreFailures: second run" "$p" check -PignoreStale
log_has "ignoreFailures: second run is up to date" ":staleCheckMain UP-TO-DATE"
expect_failure "ignoreFailures is an input: without it the up-to-date task runs again and fails" "$p" check
rm -f "$html"
expect_success "htmlReport = false: no HTML report" "$p" check -PignoreStale -PnoHtml
if [ -e "$html" ]; then fail "htmlReport = false still wrote $html"; else ok "htmlReport = false: only the SARIF file"; fi

expect_failure "staleCheckTest scans the test source set (it has a bug)" "$p" staleCheckTest
log_has "staleCheckTest names its report" "build/reports/stalecheck/test.sarif"
file_has "staleCheckTest: the compile classpath (with main's classes) went into an argument file" \
    "$p/build/tmp/staleCheckTest/classpath.txt" "build/classes/java/main$"
if [ "$(count_results "$p/build/reports/stalecheck/test.sarif" stale-value)" = 1 ]; then
    ok "staleCheckTest: only the test class's bug, not main's classes on its classpath"
else
    fail "staleCheckTest: expected 1 stale-value result in test.sarif"
fi
expect_failure "sourceSets = ['main', 'test']: staleCheck runs both" "$p" staleCheck -PwithTests --continue
log_has "sourceSets: staleCheckTest ran in the aggregate" ":staleCheckTest"

# --- the world: from the build (the application plugin), or stalecheck { world }
echo "# the world (application plugin, stalecheck { world })"
p="$(copy single)"
expect_success "application plugin: staleCheckMain runs" "$p" staleCheckMain -PasApplication -PignoreStale
# args_have DESCRIPTION FILE A B: the SARIF's recorded command line has argument A then B.
args_have() {
    if tr -d ' \n' <"$2" 2>/dev/null | grep -qF -- "\"$3\",\"$4\""; then ok "$1"; else fail "$1 (no $3 $4 in $2)"; fi
}
args_have "application plugin: the scan is told --world application" "$p/build/reports/stalecheck/main.sarif" --world application
expect_success "world = 'library': staleCheckMain runs" "$p" staleCheckMain --rerun-tasks -Pworld=library -PignoreStale
args_have "world = 'library': the scan is told --world library" "$p/build/reports/stalecheck/main.sarif" --world library
expect_failure "world = 'bogus': the build fails" "$p" staleCheckMain --rerun-tasks -Pworld=bogus
log_has "world = 'bogus': the error says what to write" "write 'library'"

# --- the summary cache: in the Gradle user home, not an input of the (cacheable) task
echo "# the summary cache"
p="$(copy single)"
mkdir -p "$work/dep-src/dep" "$work/dep-classes" "$p/libs"
printf 'package dep;\npublic class Dep {\n    private int n;\n    public synchronized int get() { return n; }\n}\n' >"$work/dep-src/dep/Dep.java"
javac -d "$work/dep-classes" "$work/dep-src/dep/Dep.java" && jar --create --file "$p/libs/dep.jar" -C "$work/dep-classes" .
expect_success "with a dependency jar: staleCheckMain runs" "$p" staleCheckMain -PwithDep -PignoreStale
args_have "the scan is told --cache <Gradle user home>/caches/stalecheck" "$p/build/reports/stalecheck/main.sarif" --cache "$GRADLE_USER_HOME/caches/stalecheck"
if ls "$GRADLE_USER_HOME/caches/stalecheck/"*.entry >/dev/null 2>&1; then
    ok "the summary cache holds the dependency jar's entry"
else
    fail "the summary cache holds the dependency jar's entry (none in $GRADLE_USER_HOME/caches/stalecheck)"
fi
expect_success "a moved cache directory does not rerun the task" "$p" staleCheckMain -PwithDep -PignoreStale -PcacheDir="$work/other-cache"
log_has "the task is up to date with another cache directory" ":staleCheckMain UP-TO-DATE"

# --- the binary: resolved from the Maven repository by default; a clear error when it cannot be
echo "# the scanner binary from Maven coordinates"
p2="$(copy single)"
expect_success "the binary is resolved from the project's Maven repository (no PATH, no STALECHECK)" "$p2" staleCheckMain --info
log_has "the resolved coordinates are named (--info)" "using io.github.stalecheck:stalecheck-cli:"
# (--no-daemon: the running daemon keeps the environment it was started with on JDK 17)
sed -i "/@STALECHECK_REPO@\|stalecheck-repo/d" "$p2/build.gradle"
if (cd "$p2" && "$GRADLE" --no-daemon --console=plain staleCheckMain --rerun-tasks) >"$work/last.log" 2>&1; then
    fail "no repository with the binary: the build fails"
else
    ok "no repository with the binary: the build fails"
fi
log_has "no binary: the error names the coordinates" "io.github.stalecheck:stalecheck-cli:"
log_has "no binary: the error names the executable setting" "executable ="
log_has "no binary: the error names STALECHECK" "STALECHECK environment variable"
if (cd "$p2" && STALECHECK=/nonexistent/stalecheck "$GRADLE" --no-daemon --console=plain staleCheckMain --rerun-tasks) >"$work/last.log" 2>&1; then
    fail "STALECHECK overrides: pointing nowhere, the build fails"
else
    ok "STALECHECK overrides: pointing nowhere, the build fails"
fi
log_has "STALECHECK overrides: the error names it" "/nonexistent/stalecheck (from the STALECHECK environment variable) does not exist"

# --- failOn (passed as --fail-on)
echo "# failOn (needs scan --fail-on)"
p="$(copy single)"
expect_failure "failOn = 'note': the clean project's one note fails the build" "$p" check -PfailOn=note
log_has "failOn = 'note': the message names the level" "at level note or above"
cp "$here/extra/Counter.java" "$p/src/main/java/demo/"
expect_success "failOn = 'error': a warning-level bug does not fail the build" "$p" check -PfailOn=error

# --- baseline: known findings pass, a new one fails
echo "# baseline (needs stalecheck baseline and scan --baseline)"
p="$(copy baseline)"
expect_success "staleBaseline writes the baseline" "$p" staleBaseline
if [ -s "$p/stalecheck-baseline.sarif" ] && [ "$(count_results "$p/stalecheck-baseline.sarif" causal-stale-value)" -ge 1 ]; then
    ok "the baseline holds the known finding (causal-stale-value, the default rule set)"
else
    fail "the baseline file is missing or without the known finding"
fi
expect_success "with the baseline, gradle check passes despite the known bug" "$p" check
cp "$here/extra/Gauge.java" "$p/src/main/java/demo/"
expect_failure "a newly added bug fails gradle check" "$p" check
log_has "the failure says the findings are new" "found new findings"
expect_success "staleBaseline refreshes the baseline; two source sets: one run each, merged" "$p" staleBaseline -PwithTests
if [ "$(count_results "$p/stalecheck-baseline.sarif" causal-stale-value)" -ge 3 ]; then
    ok "the refreshed baseline holds main's two bugs and the test source set's"
else
    fail "the refreshed baseline has $(count_results "$p/stalecheck-baseline.sarif" causal-stale-value) causal-stale-value results, expected 3"
fi
expect_success "with the refreshed baseline, check of both source sets passes" "$p" check -PwithTests
log_has "both source sets were checked" ":staleCheckTest"

# --- multi-project: one merged SARIF
echo "# multi-project (needs stalecheck merge)"
p="$(copy multi)"
expect_failure "staleCheckReport fails: project a has a bug" "$p" staleCheckReport
merged="$p/build/reports/stalecheck/stalecheck.sarif"
log_has "staleCheckReport: the scans ran" ":a:staleCheckMain"
log_has "staleCheckReport: the failure names the merged report" "Merged report: file://$merged"
log_has "staleCheckReport: the failure names the project with findings" "stalecheck found findings in :a:staleCheckMain"
log_lacks "staleCheckReport: the clean project is not named" "findings in :b:"
if [ -f "$merged" ] && [ "$(count_results "$merged" stale-value)" = 2 ]; then
    ok "one merged SARIF with a's and c's stale-value results"
else
    fail "merged SARIF missing or without exactly two stale-value results"
fi
log_has "staleCheckReport: the failure names c (a lost update on a's class)" ":c:staleCheckMain"
if python3 "$sarif_locations" "$merged" "$p" >"$work/last.log" 2>&1; then
    ok "every location in the merged SARIF resolves to a file under the root ($(cat "$work/last.log" | sed 's/.*: all //'))"
else
    fail "locations in the merged SARIF that lead nowhere"
fi
file_has "merged SARIF: a's source path relative to the root" "$merged" '"uri": *"a/src/main/java/a/Counter.java"'
file_has "merged SARIF: b's results too (its note on Clean.get)" "$merged" '"uri": *"b/src/main/java/b/Clean.java"'
expect_failure "gradle check in the multi-project build fails on a's bug" "$p" check

# --- a new project: the first run without a baseline, a planted bug, the baseline, a new bug
echo "# a new project (adoption: first run, findings in the log, baseline, only new findings)"
p="$(copy adopt)"
expect_success "first run: the baseline file does not exist yet, gradle check passes" "$p" check
log_has "first run: the log says there is no baseline yet" "no baseline yet"
log_has "first run: the log names the task that creates it" "gradle staleBaseline"
cp "$here/extra/Counter.java" "$p/src/main/java/demo/"
expect_failure "a planted lost update fails gradle check" "$p" check
if [ "$console" = 1 ]; then
    log_has "the finding is in the build log: file, line, level, rule" "src/main/java/demo/Counter.java:15: warning: "
    log_has "the finding's message is in the build log" "[causal-stale-value]"
    log_has "the finding's hint is in the build log" "hint: "
    log_has "the binary's summary is in the build log" "stalecheck: "
else
    fail "findings in the build log: this stalecheck binary has no 'scan --console' (branch i14-cli)"
fi
expect_success "staleBaseline creates the baseline" "$p" staleBaseline
[ -s "$p/stalecheck-baseline.sarif" ] && ok "the baseline file exists" || fail "no baseline file written"
expect_success "with the baseline the known bug passes" "$p" check
log_lacks "with the baseline: no 'no baseline yet' message" "no baseline yet"
cp "$here/extra/Gauge.java" "$p/src/main/java/demo/"
expect_failure "a new bug fails gradle check" "$p" check
if [ "$console" = 1 ]; then
    log_has "the new finding is in the build log" "src/main/java/demo/Gauge.java:13: warning: "
    log_lacks "the baselined finding is not printed" "src/main/java/demo/Counter.java:15: warning: "
fi

# --- the run-time agent: sections from the scan, the agent on the test task, confirmations
echo "# the run-time agent (stalecheck { agent { } })"
p="$(copy agent)"
expect_success "agent project: gradle test staleCheck passes (ignoreFailures)" "$p" test staleCheck
log_has "the agent is attached to the test task" "stalecheck: agent attached to :test: -javaagent:"
log_has "staleAgentSections ran before the tests" ":staleAgentSections"
file_has "staleAgentSections wrote the lost update's section" "$p/build/stalecheck/sections.json" '"origin": "causal-stale-value"'
file_has "the agent saw the lost update in the test" "$p/build/stalecheck/agent-test.json" '"kind": "atomicity-violation"'
file_has "the finding is marked confirmed in the report" "$p/build/reports/stalecheck/main.sarif" '"stalecheck/confirmed"'
file_has "the agent's run is merged into the report" "$p/build/reports/stalecheck/main.sarif" '"name": *"stalecheck-agent"'

# --- the current Gradle API (Maven Central's dev.gradleplugins:gradle-api), deprecations as errors
echo "# the plugin against the current Gradle API"
if "$here/../check-api.sh" >"$work/last.log" 2>&1; then
    ok "the plugin compiles against Gradle API 8.11.1 with -Xlint:deprecation -Werror"
else
    fail "the plugin does not compile against Gradle API 8.11.1 without warnings"
fi

echo
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
