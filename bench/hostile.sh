#!/usr/bin/env bash
# bench/hostile.sh: peak memory and wall time of scanning each hostile input of
# tests/hostile.rs (zip bombs, 42.zip-style nesting, a lying entry size, a
# truncated jar, duplicate names, classes over the memory budget) with the
# release build, each in its own process under /usr/bin/time -v, optionally
# under an address-space limit. Prints one line per input; a scan that ends
# without a report (a crash, an abort, exit > 2) is marked CRASH and makes the
# script exit 1.
#
# Usage: bench/hostile.sh [--skip-build] [--limit-gib N] [--binary PATH]...
#   --skip-build   use the existing release build (CARGO_TARGET_DIR respected)
#   --limit-gib N  run each scan under prlimit --as=N GiB (default 2; 0: none)
#   --binary PATH  measure this binary too (another build, side by side)
# The inputs are written once into $BENCH_DIR (default target/bench-hostile) by
# running the test with STALECHECK_HOSTILE_OUT set.
set -euo pipefail

cd "$(dirname "$0")/.."
root="$(pwd)"
skip_build=0
limit_gib=2
binaries=()
while [ $# -gt 0 ]; do
    case "$1" in
        --skip-build) skip_build=1 ;;
        --limit-gib) limit_gib="$2"; shift ;;
        --binary) binaries+=("$2"); shift ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "bench/hostile.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
[ -x /usr/bin/time ] || { echo "bench/hostile.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }

if [ "$skip_build" = 0 ]; then
    cargo build --release --locked -p stalecheck --bin stalecheck >&2
fi
binaries=("${CARGO_TARGET_DIR:-target}/release/stalecheck" "${binaries[@]}")

dir="${BENCH_DIR:-target/bench-hostile}"
if [ ! -f "$dir/bombs/42.zip" ]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    STALECHECK_HOSTILE_OUT="$(realpath "$dir")" \
        cargo test --locked -p stalecheck --test hostile >&2
fi

inputs=(
    "bombs/seven-1.jar"
    "bombs/seven-1.jar bombs/seven-2.jar bombs/seven-3.jar"
    "bombs/liar.jar"
    "bombs/42.zip"
    "bombs/cut.jar"
    "bombs/dups.jar"
    "budget/fat.jar"
    "valid bombs bombs/fifo/pipe.jar"
)

limit=()
if [ "$limit_gib" != 0 ]; then
    limit=(/usr/bin/prlimit "--as=$((limit_gib << 30))" --)
fi
echo "# peak RSS and wall time per scan; address-space limit: ${limit_gib} GiB (0 = none)"
printf '%-28s %-52s %6s %12s %8s\n' binary input exit "peak RSS" wall
crashed=0
for bin in "${binaries[@]}"; do
    for input in "${inputs[@]}"; do
        # shellcheck disable=SC2086 # the inputs are lists of paths
        ( cd "$dir" && /usr/bin/time -v -o time.txt "${limit[@]}" "$(cd "$root" && realpath "$bin")" \
            scan $input --format json --output report.json --no-progress 2>/dev/null ) && code=0 || code=$?
        if [ "$code" -gt 2 ] || ! grep -q '"schema"' "$dir/report.json" 2>/dev/null; then
            status="CRASH($code)"
            crashed=1
        else
            status="$code"
        fi
        peak=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$dir/time.txt")
        wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$dir/time.txt")
        printf '%-28s %-52s %6s %9d MB %8s\n' "$bin" "$input" "$status" "$((peak / 1024))" "$wall"
        rm -f "$dir/report.json" "$dir/time.txt"
    done
done
exit "$crashed"
