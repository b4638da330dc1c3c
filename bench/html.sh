#!/usr/bin/env bash
# bench/html.sh: the HTML report of a scan with about 10,000 findings: its size, the time to
# write it, and how long Chromium takes to open it. A measurement, not a test: the targets
# (under 20 MB, open in under 2 s) are printed as OK or MISS and the script exits 0; it exits 1
# only when something could not be measured, 2 on a usage error or a missing tool.
#
#   bench/html.sh [--findings N] [--skip-build] [--no-source]
#
# The input is generated: N/10 classes of five methods, each method a read in one synchronized
# block used in the next (a stale-value and a block-local-atomicity finding each), compiled by
# javac, scanned with --rules all and (unless --no-source) --source-root, so that every finding
# has its source excerpt. Chromium is driven by tests/scripts/browser.py (DevTools protocol over
# a pipe): the figure is the time from navigation to the first frame after the load event
# (median of 3 loads), plus the DOMContentLoaded and load-event times of the page.
set -euo pipefail
cd "$(dirname "$0")/.."

findings=10000
build=1
source=1
while [ $# -gt 0 ]; do
    case "$1" in
        --findings) findings="$2"; shift 2 ;;
        --skip-build) build=0; shift ;;
        --no-source) source=0; shift ;;
        -h|--help) sed -n 2,15p "$0"; exit 0 ;;
        *) echo "bench/html.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
for tool in javac python3 chromium; do
    command -v "$tool" >/dev/null 2>&1 || { echo "bench/html.sh: $tool is missing" >&2; exit 2; }
done
if [ "$build" = 1 ]; then
    cargo build --release --locked -p stalecheck >&2
fi
bin=target/release/stalecheck
work=$(mktemp -d "${TMPDIR:-/tmp}/stalecheck-html-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

classes=$(( (findings + 9) / 10 ))
echo "== generating $classes classes (about $findings findings)"
python3 - "$work/src" "$classes" <<'EOF'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for c in range(n):
    pkg = f"bench.p{c % 40}"
    d = os.path.join(root, *pkg.split("."))
    os.makedirs(d, exist_ok=True)
    methods = "\n".join(f"""
    int m{k}() {{
        int v;
        synchronized (lock) {{
            v = count{k};
        }}
        synchronized (lock) {{
            count{k} = v + 1;
        }}
        return v;
    }}""" for k in range(5))
    fields = "\n".join(f"    private int count{k};" for k in range(5))
    with open(os.path.join(d, f"C{c}.java"), "w") as f:
        f.write(f"""package {pkg};

/** Generated for bench/html.sh: five read-then-write-back methods. */
public class C{c} {{
    private final Object lock = new Object();
{fields}
{methods}
}}
""")
EOF
find "$work/src" -name '*.java' > "$work/sources.txt"
mkdir -p "$work/classes"
javac -g -d "$work/classes" @"$work/sources.txt"

args=(scan "$work/classes" --rules all --fail-on none --no-progress)
if [ "$source" = 1 ]; then
    args+=(--source-root "$work/src")
fi
echo "== scanning (stalecheck ${args[*]} --format html)"
start=$(date +%s.%N)
"$bin" "${args[@]}" --format sarif --output "$work/report.sarif" 2>/dev/null
mid=$(date +%s.%N)
"$bin" "${args[@]}" --format html --output "$work/report.html" 2>/dev/null
end=$(date +%s.%N)
n=$(grep -c '<section class="finding"' "$work/report.html" || true)
bytes=$(stat -c %s "$work/report.html")
sarif_bytes=$(stat -c %s "$work/report.sarif")
gz=$(gzip -c "$work/report.html" | wc -c)

echo "== opening it in Chromium (3 loads)"
loads=()
for i in 1 2 3; do
    out=$(python3 tests/scripts/browser.py "$work/report.html" "$work/shots" || true)
    loads+=("$out")
done
python3 - "$n" "$bytes" "$gz" "$sarif_bytes" "$start" "$mid" "$end" "${loads[@]}" <<'EOF'
import json, statistics, sys
n, size, gz, sarif = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
start, mid, end = map(float, sys.argv[5:8])
runs = [json.loads(s) for s in sys.argv[8:] if s.strip().startswith("{")]
if not runs:
    print("bench/html.sh: Chromium could not be measured", file=sys.stderr)
    sys.exit(1)
def med(key):
    return statistics.median(r["timings_ms"][key] for r in runs)
frame = med("first_frame_after_load")
print(f"findings in the report        {n}")
print(f"report size                   {size / 1e6:.2f} MB ({size / max(n, 1):.0f} bytes per finding; gzip {gz / 1e6:.2f} MB)"
      f"   target < 20 MB: {'OK' if size < 20e6 else 'MISS'}")
print(f"SARIF of the same scan        {sarif / 1e6:.2f} MB")
print(f"scan + SARIF (wall)           {mid - start:.2f} s")
print(f"scan + HTML (wall)            {end - mid:.2f} s")
print(f"Chromium: DOMContentLoaded    {med('dom_content_loaded'):.0f} ms (median of {len(runs)})")
print(f"Chromium: load event end      {med('load_event_end'):.0f} ms")
print(f"Chromium: first frame after load {frame:.0f} ms   target < 2000 ms: {'OK' if frame < 2000 else 'MISS'}")
r = runs[0]
print(f"diagrams drawn                {r['diagrams']} of {r['findings']}; console errors: {len(r['errors'])}")
EOF
