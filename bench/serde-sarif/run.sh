#!/usr/bin/env bash
# bench/serde-sarif/run.sh: serde-sarif next to stalecheck's own SARIF writer and reader, side by
# side in one run, on the SARIF of a scan of the JDK's jmods (or the paths given). Prints figures.
#   bench/serde-sarif/run.sh [PATH...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$here/../.."
cd "$repo"
cargo build --release --locked -p stalecheck >&2
(cd "$here" && cargo build --release >&2)
if [ $# -eq 0 ]; then
    jdk_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    set -- "$jdk_home"/jmods/*.jmod
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# stalecheck's own writer: the rendering phase of the scan (STALECHECK_TIMINGS), median of 3.
for i in 1 2 3; do
    STALECHECK_TIMINGS=1 target/release/stalecheck scan --rules all --fail-on none --no-progress \
        --format sarif --output "$out/jdk.sarif" -- "$@" 2>&1 >/dev/null \
        | sed -n 's/.*rendering \([0-9.]*\)\(ms\|s\|µs\).*/\1 \2/p'
done | python3 -c '
import sys
v = sorted(float(a) * {"s": 1000, "ms": 1, "µs": 0.001}[u] for a, u in (l.split() for l in sys.stdin))
print(f"stalecheck: SARIF rendering in the scan (wire.rs, median of {len(v)}): {v[len(v)//2]:.1f} ms")'
"$here/target/release/serde-sarif-eval" "$out/jdk.sarif"
