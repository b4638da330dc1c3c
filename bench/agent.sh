#!/usr/bin/env bash
# The run-time agent's overhead (issue 16): a self-contained multi-threaded Java workload
# (bench/agent/benchwork/Workload.java: a producer, worker threads, a blocking queue, a
# concurrent map, a synchronized statistics object, objects with plain fields, arrays; it checks
# its own result) run side by side, in one script run, without the agent, with the agent on the
# sections `stalecheck scan --sections` writes for it, and in full data-race mode (every
# non-final, non-volatile field and array access a primitive section). No noise: this measures
# the monitoring itself. Prints the median wall time of RUNS runs of each and the slowdowns.
# Goals: < 1.5x with the static sections, < 5x in full mode.
#
# Usage: bench/agent.sh [RUNS (default 7)] [THREADS (default 4)] [DOCS (default 20000)]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
threads=${2:-4}
docs=${3:-20000}
out=bench/out/agent
mkdir -p "$out/classes"

mvn -B -q -f agent/pom.xml package -DskipTests
jar=agent/target/stalecheck-agent.jar
cargo build -q --release --locked -p stalecheck
javac -g --release 8 -d "$out/classes" bench/agent/benchwork/Workload.java
set +e
target/release/stalecheck scan "$out/classes" --sections "$out/sections.json" --no-progress >/dev/null
code=$?
set -e
if [ "$code" -gt 1 ]; then
    echo "the scan of the workload failed ($code)" >&2
    exit 1
fi
echo "sections: $(grep -c '"id"' "$out/sections.json") in $out/sections.json"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# One run: wall milliseconds (the JVM's start included).
one() {
    local s e
    s=$(date +%s%N)
    java "$@" -cp "$out/classes" benchwork.Workload "$threads" "$docs" >"$out/last.txt"
    e=$(date +%s%N)
    echo $(((e - s) / 1000000))
}

declare -A times
for i in $(seq 1 "$runs"); do
    # Interleaved, so that drift of the machine's speed hits every variant alike.
    times[none]+="$(one) "
    times[sections]+="$(one "-javaagent:$jar=sections=$out/sections.json,out=$out/sections-report.json") "
    times[full]+="$(one "-javaagent:$jar=mode=full,out=$out/full-report.json") "
done
base=$(echo "${times[none]}" | tr ' ' '\n' | grep . | median)
printf '%-34s %8s %9s\n' "variant ($threads workers, $docs docs)" "median ms" "slowdown"
for v in none sections full; do
    m=$(echo "${times[$v]}" | tr ' ' '\n' | grep . | median)
    printf '%-34s %8d %8.2fx\n' "$v" "$m" "$(echo "$m / $base" | bc -l)"
done
for r in sections full; do
    n=$(python3 -c "import json,sys; d=json.load(open('$out/$r-report.json')); print(len(d['violations']), d['instrumented']['locations'])")
    echo "$r: violations, instrumented locations: $n"
done
