#!/usr/bin/env bash
# The run-time agent's detection rates (issue 16): RUNS separate JVM runs of each fixture of
# fixtures/agent with the agent on the sections `stalecheck scan --sections` writes for them, with
# noise (random, 100 per mille, 1 ms sleep, seed = run number). Prints, per program, the runs that
# reported a violation of the expected section and the runs whose result was wrong.
# The buggy programs (Bank: the seed's `BankTotal += sum`; LostUpdate: a stale-value lost update;
# Race, full mode: a data race) should be detected in >= 95% of runs; the correct versions
# (BankLocked, LostUpdateLocked, BankConfined, BankAtomic) should give no report in any run.
#
# Usage: bench/agent-detect.sh [RUNS (default 100)]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-100}
out=bench/out/agent-detect
rm -rf "$out" && mkdir -p "$out/classes"
mvn -B -q -f agent/pom.xml package -DskipTests
jar=agent/target/stalecheck-agent.jar
cargo build -q --release --locked -p stalecheck
javac -g --release 8 -d "$out/classes" fixtures/agent/agentfix/*.java 2>/dev/null
set +e
target/release/stalecheck scan "$out/classes" --sections "$out/sections.json" --no-progress >/dev/null 2>&1
set -e
noise="noise=random,permille=100,sleep=1"

# detect MAIN ARGS OPTS PATTERN: runs reporting PATTERN, runs with a wrong total.
detect() {
    local main=$1 args=$2 opts=$3 pattern=$4 hit=0 wrong=0
    for i in $(seq 1 "$runs"); do
        # shellcheck disable=SC2086
        java "-javaagent:$jar=$opts,seed=$i,out=$out/r.json" -cp "$out/classes" "agentfix.$main" $args \
            >"$out/stdout.txt" 2>/dev/null
        if grep -q "$pattern" "$out/r.json"; then hit=$((hit + 1)); fi
        if grep -q "^total=" "$out/stdout.txt" && awk '{split($1,t,"=");split($2,e,"="); if (t[2]!=e[2]) bad=1} END {exit !bad}' "$out/stdout.txt"; then
            wrong=$((wrong + 1))
        fi
    done
    local mode=sections
    case "$opts" in mode=full*) mode=full ;; esac
    printf '%-18s %-9s %-60.60s reported in %3d/%d runs, wrong result in %3d/%d\n' "$main" "$mode" "($pattern)" \
        "$hit" "$runs" "$wrong" "$runs"
}

# A violation's line starts with its kind (the sections list has kinds `general`/`primitive`).
violation='"kind": "\(atomicity-violation\|data-race\)"'
detect Bank "4 100 1" "sections=$out/sections.json,$noise" '"section": "load-and-store:agentfix.Bank.deposit'
detect LostUpdate "4 100 1" "sections=$out/sections.json,$noise" '"section": "stale-value:agentfix.LostUpdate.deposit'
detect Race "200 1" "mode=full,$noise" '"kind": "data-race"'
for main in BankLocked LostUpdateLocked BankConfined BankAtomic; do
    detect "$main" "4 100 1" "sections=$out/sections.json,$noise" "$violation"
    detect "$main" "4 100 1" "mode=full,$noise" "$violation"
done
