#!/usr/bin/env bash
# bench/compare.sh: compare stalecheck builds side by side on the per-method JDK benchmark.
#
# The builds run alternately (one scan of each per round), so that this machine's drift in
# speed (20% between sessions) falls on all of them alike; the medians of wall time and of CPU
# time (user + system) are printed, each also as a change against the first build. This is a
# measurement, not a test: it exits 0 whatever the figures.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: bench/compare.sh [--rounds N] [--rules RULES] BINARY BINARY...

Scan the JDK's modules ($JAVA_HOME/jmods/*.jmod) with each BINARY in turn, N rounds (default 8):
  stalecheck scan --rules RULES --format json --output FILE --no-progress -- *.jmod
RULES defaults to `stale-value,block-local-atomicity` (the per-method benchmark of issue 11).
The first BINARY is the baseline (build it from the commit to compare against, e.g. with
`git worktree add` and `cargo build --release`).

Exit status: 0 when every scan ran, 1 when one failed, 2 on a usage error.
USAGE
}

die() {
    echo "bench/compare.sh: error: $*" >&2
    exit 2
}

rounds=8
rules=stale-value,block-local-atomicity
bins=()
while (($#)); do
    case $1 in
        --rounds)
            (($# >= 2)) || die "--rounds needs a value"
            rounds=$2
            shift 2
            ;;
        --rules)
            (($# >= 2)) || die "--rules needs a value"
            rules=$2
            shift 2
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        -*) die "unknown option $1" ;;
        *)
            bins+=("$1")
            shift
            ;;
    esac
done
((${#bins[@]} >= 1)) || {
    usage >&2
    exit 2
}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive number"
for b in "${bins[@]}"; do
    [[ -x $b ]] || die "not an executable: $b"
done
[[ -x /usr/bin/time ]] || die "/usr/bin/time is needed"
java_home=${JAVA_HOME:-}
if [[ -z $java_home ]]; then
    javac=$(command -v javac) || die "JAVA_HOME is not set and javac is not on PATH"
    java_home=$(dirname "$(dirname "$(readlink -f "$javac")")")
fi
shopt -s nullglob
jmods=("$java_home"/jmods/*.jmod)
((${#jmods[@]})) || die "no *.jmod under $java_home/jmods"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/times.txt
for ((round = 1; round <= rounds; round++)); do
    for i in "${!bins[@]}"; do
        status=0
        /usr/bin/time -f "$i %e %U %S" -o "$work/t" "${bins[$i]}" scan --rules "$rules" \
            --format json --output "$work/out.json" --no-progress -- "${jmods[@]}" \
            >/dev/null 2>"$work/err" || status=$?
        # Exit 1 (findings) is a completed scan; anything else is not.
        if ((status > 1)); then
            echo "bench/compare.sh: ${bins[$i]} failed (exit $status):" >&2
            cat "$work/err" >&2
            exit 1
        fi
        tail -n 1 "$work/t" >>"$log"
    done
done

python3 - "$log" "${bins[@]}" <<'PY'
import statistics, sys
log, bins = sys.argv[1], sys.argv[2:]
wall = {i: [] for i in range(len(bins))}
cpu = {i: [] for i in range(len(bins))}
for line in open(log):
    i, e, u, s = line.split()
    wall[int(i)].append(float(e))
    cpu[int(i)].append(float(u) + float(s))
base = (statistics.median(wall[0]), statistics.median(cpu[0]))
print(f"{'build':50} {'wall':>8} {'vs first':>9} {'cpu':>8} {'vs first':>9}  rounds")
for i, b in enumerate(bins):
    w, c = statistics.median(wall[i]), statistics.median(cpu[i])
    print(f"{b[-50:]:50} {w:8.3f} {(w / base[0] - 1) * 100:+8.1f}% {c:8.3f} {(c / base[1] - 1) * 100:+8.1f}%  {len(wall[i])}")
PY
