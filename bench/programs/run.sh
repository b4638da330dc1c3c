#!/usr/bin/env bash
# bench/programs/run.sh: the whole-program rules on small programs in the style of the
# atomicity literature's benchmarks (bank accounts, airline tickets, elevators, philosophers,
# branch-and-bound, stencils, producer/consumer, version stamps), each a `main` that starts its
# threads. A directory whose name ends in `bug` is a buggy twin of the program of the same
# stem: it must be reported. Every other program is correct: each warning on it is a false
# alarm. Prints the warnings per program, then the false alarms by rule and the twins caught.
# A measurement, not a test: it exits 0 whatever the figures (1 when a scan fails to run).
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: bench/programs/run.sh [BINARY]

Compiles each program under bench/programs/<set>/<name>/ with javac (JAVA_HOME's, or the one
on PATH) and scans its classes with `BINARY scan --rules all`, then with the default rules
(BINARY defaults to target/release/stalecheck).
USAGE
}

case ${1:-} in
    -h | --help)
        usage
        exit 0
        ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../../target/release/stalecheck}
[[ -x $bin ]] || {
    echo "bench/programs/run.sh: error: no stalecheck binary at $bin (cargo build --release)" >&2
    exit 2
}
javac=javac
[[ -n ${JAVA_HOME:-} && -x $JAVA_HOME/bin/javac ]] && javac=$JAVA_HOME/bin/javac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

status=0
for dir in "$here"/*/*; do
    [[ -d $dir ]] || continue
    name=$(basename "$(dirname "$dir")")/$(basename "$dir")
    out=$work/${name//\//_}
    mkdir -p "$out/classes"
    "$javac" -g -nowarn -d "$out/classes" "$dir"/*.java >"$out/javac.log" 2>&1 || {
        echo "$name: javac failed (see below)" >&2
        cat "$out/javac.log" >&2
        status=1
        continue
    }
    # All rules, then the default run (where a finding another rule confirms stays its own).
    for run in all default; do
        rc=0
        args=(--rules all)
        [[ $run == default ]] && args=()
        "$bin" scan "${args[@]}" --format json --output "$out/$run.json" "$out/classes" \
            >/dev/null 2>"$out/scan.log" || rc=$?
        if ((rc > 1)); then
            echo "$name: scan failed (exit $rc)" >&2
            cat "$out/scan.log" >&2
            status=1
        fi
    done
done

python3 - "$work" <<'PY'
import collections, glob, json, os, sys

work = sys.argv[1]
false_by_rule = collections.Counter()
false_default = 0
correct = buggy = caught = caught_default = 0
missed = []
missed_default = []
def warnings(report):
    try:
        return [f for f in json.load(open(report))["findings"] if f["level"] == "warning"]
    except (OSError, ValueError):
        return []
for report in sorted(glob.glob(os.path.join(work, "*", "all.json"))):
    name = os.path.basename(os.path.dirname(report)).replace("_", "/", 1)
    findings = warnings(report)
    default = warnings(os.path.join(os.path.dirname(report), "default.json"))
    is_bug = name.endswith("bug")
    if is_bug:
        buggy += 1
        caught += bool(findings)
        caught_default += bool(default)
        if not findings:
            missed.append(name)
        if not default:
            missed_default.append(name)
    else:
        correct += 1
        for f in findings:
            false_by_rule[f["rule"]] += 1
        false_default += len(default)
    mark = "twin" if is_bug else "correct"
    print(f"{name:24} {mark:8} {len(findings)} warning(s)")
    for f in findings:
        print(f"    {f['rule']:22} {f['class']}.{f['method']}:{f['line']}")
print()
total = sum(false_by_rule.values())
by_rule = ", ".join(f"{r} {n}" for r, n in sorted(false_by_rule.items())) or "none"
print(f"correct programs: {correct}, warnings on them (false alarms): {total} ({by_rule})")
print(f"buggy twins: {buggy}, reported: {caught}" + (f"; missed: {', '.join(missed)}" if missed else ""))
print(f"default run: false alarms {false_default}, twins reported {caught_default}"
      + (f"; missed: {', '.join(missed_default)}" if missed_default else ""))
PY
exit $status
