#!/usr/bin/env bash
# bench/run.sh: scan benchmark corpora with the release build of stalecheck
# and print figures: sizes, findings, wall/CPU time, peak RSS, throughput and
# the binary's own phase timings. This is a measurement, not a test: a missed
# target is reported as MISS and the script still exits 0. It exits non-zero
# only when a scan crashed (exit > 2, exit 2 without a report, or a signal) or
# lost classes (an input problem of severity `error`: the scan exits 2 and still
# writes its report), on a usage error, or when nothing was measured.
#
# See bench/README.md for what the figures mean.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: bench/run.sh [--runs N] [--skip-build] [CORPUS...]

Scan each corpus N times (default 3) with
  STALECHECK_TIMINGS=1 stalecheck scan --format json --output FILE --no-progress -- INPUTS...
under /usr/bin/time, and print one table per corpus (median over the runs).

CORPUS is `jdk` (every *.jmod under $JAVA_HOME/jmods), `usr-share-java`
(the directory /usr/share/java), or any path stalecheck can scan: a directory,
a .class file or an archive (.jar, .war, .ear, .zip, .jmod). Write ./jdk for a
path that happens to be called jdk. Default: jdk usr-share-java.

Options:
  --runs N       scans per corpus (default 3); the median run is reported
  --skip-build   use the existing target/release/stalecheck; do not run cargo
  -h, --help     print this help

Exit status: 0 when every scan completed (missed targets included),
1 when a scan crashed or lost classes, or no corpus could be measured,
2 on a usage error or a missing tool.
EOF
}

die() {
    echo "bench/run.sh: error: $*" >&2
    exit 2
}

# --- arguments ---------------------------------------------------------------
runs=3
skip_build=0
corpora=()
while (($#)); do
    case $1 in
        --runs)
            (($# >= 2)) || die "--runs needs a value"
            runs=$2
            shift 2
            ;;
        --runs=*)
            runs=${1#*=}
            shift
            ;;
        --skip-build)
            skip_build=1
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        --)
            shift
            corpora+=("$@")
            break
            ;;
        -*)
            usage >&2
            die "unknown option: $1"
            ;;
        *)
            corpora+=("$1")
            shift
            ;;
    esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs wants a positive integer, got '$runs'"
((${#corpora[@]})) || corpora=(jdk jdk-open-world usr-share-java)

# --- tools -------------------------------------------------------------------
[[ -x /usr/bin/time ]] ||
    die "/usr/bin/time (GNU time) is missing; install it, on Debian: apt-get install time"
if command -v python3 >/dev/null 2>&1; then
    json_tool=python3
elif command -v jq >/dev/null 2>&1; then
    json_tool=jq
else
    die "need python3 or jq to read the JSON report"
fi

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$script_dir/.." && pwd)
target_dir=${CARGO_TARGET_DIR:-$root/target}
[[ $target_dir == /* ]] || target_dir=$root/$target_dir
bin=$target_dir/release/stalecheck

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stalecheck-bench.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

# --- helpers -----------------------------------------------------------------

# Integer with thousands separators: group 1234567 -> 1,234,567.
group() {
    awk -v n="$1" 'BEGIN {
        s = sprintf("%.0f", n); neg = ""
        if (substr(s, 1, 1) == "-") { neg = "-"; s = substr(s, 2) }
        out = ""
        while (length(s) > 3) { out = "," substr(s, length(s) - 2) out; s = substr(s, 1, length(s) - 3) }
        print neg s out
    }'
}

# calc EXPR: evaluate an awk arithmetic/boolean expression and print it.
calc() {
    awk "BEGIN { print ($1) }"
}

# Median of the numbers given as arguments (mean of the middle two for even counts).
median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
        if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Facts from a JSON report, one per line:
#   classes N | methods N | findings N | rule ID COUNT | problem SEVERITY COUNT
#   error PATH<TAB>REASON   (the first 20 problems of severity error)
json_facts() {
    if [[ $json_tool == python3 ]]; then
        python3 - "$1" <<'PY'
import collections, json, sys

with open(sys.argv[1], encoding="utf-8") as f:
    report = json.load(f)
summary = report.get("summary", {})
for key in ("classes", "methods", "findings"):
    print(key, summary.get(key, 0))
rules = collections.Counter(f.get("rule", "?") for f in report.get("findings", []))
for rule, n in sorted(rules.items()):
    print("rule", rule, n)
problems = report.get("problems", [])
severities = collections.Counter(p.get("severity", "?") for p in problems)
for severity, n in sorted(severities.items()):
    print("problem", severity, n)
errors = [p for p in problems if p.get("severity") == "error"]
for p in errors[:20]:
    print("error", str(p.get("path", "?")) + "\t" + str(p.get("reason", "?")))
PY
    else
        jq -r '
            "classes \(.summary.classes // 0)",
            "methods \(.summary.methods // 0)",
            "findings \(.summary.findings // 0)",
            ((.findings // []) | group_by(.rule)[] | "rule \(.[0].rule) \(length)"),
            ((.problems // []) | group_by(.severity)[] | "problem \(.[0].severity) \(length)"),
            ((.problems // []) | map(select(.severity == "error")) | .[:20][]
                | "error \(.path)\t\(.reason)")' "$1"
    fi
}

# fact FILE KEY: the value of a single-valued fact (0 when absent).
fact() {
    awk -v k="$2" '$1 == k { print $2; found = 1; exit } END { if (!found) print 0 }' "$1"
}

# Phase timings from the `timings:` lines on a scan's stderr, as a table.
#   timings: load 412ms, parse 1.0s, summaries 550ms, analysis 700ms
#   timings: summaries: direct+propagate 198ms, returns 473ms   (a breakdown)
print_phases() { # STDERR_FILE WALL_SECONDS
    LC_ALL=C awk -v wall="$2" '
    function ms(v) {
        if (v ~ /^[0-9.]+ns$/) return substr(v, 1, length(v) - 2) / 1e6
        if (v ~ /^[0-9.]+ms$/) return substr(v, 1, length(v) - 2) + 0
        if (v ~ /^[0-9.]+us$/) return substr(v, 1, length(v) - 2) / 1e3
        if (index(v, "\302\265s") && v ~ /^[0-9.]/) return substr(v, 1, index(v, "\302\265s") - 1) / 1e3
        if (v ~ /^[0-9.]+s$/) return substr(v, 1, length(v) - 1) * 1e3
        return -1
    }
    function show(indent, name, v,   m, label) {
        m = ms(v)
        label = substr("  ", 1, indent) name
        if (m < 0) printf "    %-24s %12s\n", label, v
        else printf "    %-24s %9.0f ms\n", label, m
        return m
    }
    /^timings: / {
        line = substr($0, 10); parent = ""
        if (match(line, /^[^ ,]+: /)) { parent = substr(line, 1, RLENGTH - 2); line = substr(line, RLENGTH + 1) }
        n = split(line, items, /, /)
        for (i = 1; i <= n; i++) {
            item = items[i]; sp = 0
            for (j = length(item); j > 0; j--) if (substr(item, j, 1) == " ") { sp = j; break }
            if (sp == 0) { name = item; val = "?" } else { name = substr(item, 1, sp - 1); val = substr(item, sp + 1) }
            if (parent == "") { top[++ntop] = name; topval[name] = val }
            else {
                if (!(parent in sub_n)) { sub_n[parent] = 0; nparents++ }
                sub_n[parent]++; subname[parent, sub_n[parent]] = name; subval[parent, sub_n[parent]] = val
            }
        }
    }
    END {
        if (ntop == 0 && nparents == 0) {
            print "    (no `timings:` lines on stderr: is this binary older than STALECHECK_TIMINGS?)"
            exit
        }
        total = 0
        for (t = 1; t <= ntop; t++) {
            m = show(0, top[t], topval[top[t]])
            if (m > 0) total += m
            for (s = 1; s <= sub_n[top[t]] + 0; s++) show(2, subname[top[t], s], subval[top[t], s])
            done[top[t]] = 1
        }
        for (p in sub_n) if (!(p in done))
            for (s = 1; s <= sub_n[p]; s++) show(0, p ": " subname[p, s], subval[p, s])
        if (ntop > 0) {
            printf "    %-24s %9.0f ms\n", "sum of the phases", total
            rest = wall * 1000 - total
            if (rest > -10 && rest < 0.5) rest = 0  # wall is measured to 10 ms
            printf "    %-24s %9.0f ms   (wall - sum: start-up, input listing, untimed steps)\n", "not in a phase", rest
        }
    }' "$1"
}

row() { # LABEL VALUE [NOTE]
    if [[ -n ${3:-} ]]; then
        printf '  %-30s %14s  %s\n' "$1" "$2" "$3"
    else
        printf '  %-30s %14s\n' "$1" "$2"
    fi
}

# ratio A B FORMAT: A / B printed with FORMAT, or "n/a" when B is (about) zero.
ratio() {
    awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { if (b < 0.005) print "n/a"; else printf f "\n", a / b }'
}

# --- corpora -----------------------------------------------------------------
# resolve NAME: fill corpus_desc and corpus_inputs, or print why the corpus is
# skipped and return 1.
corpus_desc=""
corpus_inputs=()
corpus_args=()
resolve() {
    corpus_desc=""
    corpus_inputs=()
    corpus_args=()
    case $1 in
        jdk | jdk-open-world)
            local jh=${JAVA_HOME:-} javac
            if [[ -z $jh ]] && javac=$(command -v javac); then
                jh=$(dirname -- "$(dirname -- "$(readlink -f -- "$javac")")")
            fi
            if [[ -z $jh ]]; then
                echo "skipped: corpus jdk: JAVA_HOME is not set and there is no javac on PATH"
                return 1
            fi
            if [[ ! -d $jh/jmods ]]; then
                echo "skipped: corpus jdk: no jmods directory in $jh (a JRE, or a JDK without jmods; on Debian the jmods come with openjdk-17-jdk-headless)"
                return 1
            fi
            mapfile -t corpus_inputs < <(find "$jh/jmods" -type f -name '*.jmod' | LC_ALL=C sort)
            if ((${#corpus_inputs[@]} == 0)); then
                echo "skipped: corpus jdk: no *.jmod files under $jh/jmods"
                return 1
            fi
            local version=""
            if [[ -f $jh/release ]]; then
                version=$(sed -n 's/^JAVA_VERSION="\(.*\)"$/\1/p' "$jh/release")
            fi
            corpus_desc="${#corpus_inputs[@]} .jmod files under $jh/jmods${version:+ (JDK $version)}"
            if [[ $1 == jdk ]]; then
                # The scanner-core target: the two per-method rules.
                corpus_args=(--rules "stale-value,block-local-atomicity")
                corpus_desc+=", rules stale-value and block-local-atomicity"
            else
                # The whole-program target: all rules, open world.
                corpus_args=(--open-world --rules all)
                corpus_desc+=", all rules, --open-world"
            fi
            ;;
        usr-share-java)
            if [[ ! -d /usr/share/java ]]; then
                echo "skipped: corpus usr-share-java: /usr/share/java does not exist"
                return 1
            fi
            corpus_inputs=(/usr/share/java)
            local jars
            jars=$(find /usr/share/java -name '*.jar' | wc -l)
            corpus_desc="the directory /usr/share/java ($jars .jar names, symbolic links included)"
            ;;
        *)
            # Any other path goes to the scanner as it is, so that a missing
            # or unreadable input is reported the way stalecheck reports it.
            corpus_inputs=("$1")
            if [[ -d $1 ]]; then
                corpus_desc="the directory $1"
            elif [[ -e $1 ]]; then
                corpus_desc="the file $1 ($(du -h -- "$1" | cut -f1))"
            else
                corpus_desc="$1 (does not exist)"
            fi
            ;;
    esac
}

# --- header ------------------------------------------------------------------
echo "stalecheck benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
mem=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576; exit }' /proc/meminfo 2>/dev/null || true)
echo "machine: $(nproc) CPUs (nproc), CPU model: ${cpu:-unknown}, memory: ${mem:-unknown} total"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
load1=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
if [[ $(calc "$load1 >= 0.5 * $(nproc)") == 1 ]]; then
    echo "NOTE: the machine is busy (1-minute load $load1 on $(nproc) CPUs): expect inflated wall times"
fi

if ((skip_build)); then
    [[ -x $bin ]] || die "--skip-build, but there is no binary at $bin (build it: cargo build --release -p stalecheck --locked)"
else
    echo "building: (cd $root && cargo build --release -p stalecheck --locked)"
    (cd -- "$root" && cargo build --release -p stalecheck --locked)
fi
version=$("$bin" --version 2>&1) || die "$bin --version failed: $version"
echo "binary: $bin: $version (built $(date -u -r "$bin" '+%Y-%m-%d %H:%M UTC'))"
if git -C "$root" rev-parse --short HEAD >/dev/null 2>&1; then
    dirty=""
    [[ -z $(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null) ]] || dirty=" + uncommitted changes"
    echo "source: git $(git -C "$root" rev-parse --short HEAD)$dirty"
fi
echo "JSON read with: $json_tool"
echo "note: timings on a shared VM vary from run to run (other load, caches, CPU"
echo "      steal), so each corpus is scanned $runs time(s) and the median run is the"
echo "      one to quote. The first run may also pay for a cold file cache."

# Rule ids known to the binary, so that rules without findings show 0.
mapfile -t rule_ids < <("$bin" rules 2>/dev/null |
    awk '/^Rules:/ { r = 1; next } r && /^  [a-z]/ { print $1; next } r && !/^  / { exit }' || true)

# --- one corpus --------------------------------------------------------------
failures=()
measured=0

bench_corpus() { # NAME
    local name=$1
    corpus_no=$((corpus_no + 1))
    local dir="$tmp/corpus$corpus_no"
    mkdir -p "$dir"
    echo
    echo "== $name: $corpus_desc =="

    local i rc walls=() cpus=() rsss=() okruns=() failed="" line
    local -a wall_of=()
    for ((i = 1; i <= runs; i++)); do
        local json=$dir/run$i.json err=$dir/run$i.err tfile=$dir/run$i.time
        rc=0
        STALECHECK_TIMINGS=1 /usr/bin/time -o "$tfile" -f '%e %U %S %M' \
            "$bin" scan --format json --output "$json" --no-progress "${corpus_args[@]}" -- "${corpus_inputs[@]}" \
            >"$dir/run$i.out" 2>"$err" || rc=$?
        # Exit 2 with a report is an input that could not be read (the JSON problems of
        # severity `error` say which; checked below): measured, then failed. Exit 2 without a
        # report (a usage error), above 2 or a signal is a crash.
        if ((rc > 2)) || { ((rc == 2)) && [[ ! -s $json ]]; }; then
            local why="exit status $rc"
            if line=$(grep -m1 '^Command terminated by signal' "$tfile" 2>/dev/null); then
                why="signal ${line##* }"
            fi
            echo "run $i/$runs: FAILED: the scan ended with $why; the last lines of its stderr:"
            tail -n 20 "$err" | sed 's/^/    | /'
            failed="scan crashed ($why)"
            break
        fi
        local wall user sys rss
        read -r wall user sys rss < <(tail -n 1 "$tfile")
        if [[ ! -s $json ]]; then
            echo "run $i/$runs: FAILED: exit status $rc, but the scan wrote no JSON report; the last lines of its stderr:"
            tail -n 10 "$err" | sed 's/^/    | /'
            failed="no JSON report (exit status $rc)"
            break
        fi
        if ! json_facts "$json" >"$dir/run$i.facts" 2>"$dir/run$i.facts.err"; then
            echo "run $i/$runs: FAILED: exit status $rc, but the JSON report could not be read with $json_tool:"
            tail -n 5 "$dir/run$i.facts.err" | sed 's/^/    | /'
            failed="unreadable JSON report"
            break
        fi
        rm -f -- "$json"
        wall_of[i]=$wall
        walls+=("$wall")
        cpus+=("$(calc "$user + $sys")")
        rsss+=("$rss")
        okruns+=("$i")
        printf 'run %d/%d: wall %6.2f s, user %6.2f s, sys %5.2f s, peak RSS %6.0f MB, exit %d, %s classes, %s findings\n' \
            "$i" "$runs" "$wall" "$user" "$sys" "$(calc "$rss * 1024 / 1e6")" "$rc" \
            "$(group "$(fact "$dir/run$i.facts" classes)")" "$(group "$(fact "$dir/run$i.facts" findings)")"
    done

    if ((${#okruns[@]} == 0)); then
        failures+=("$name: $failed")
        return
    fi

    # The median run: the lower middle one when sorted by wall time.
    local mid med_run
    mid=$(((${#okruns[@]} - 1) / 2))
    med_run=$(for i in "${okruns[@]}"; do echo "${wall_of[i]} $i"; done | sort -g -s -k1,1 | sed -n "$((mid + 1))p" | cut -d' ' -f2)
    local facts=$dir/run$med_run.facts
    local med_wall min_wall med_cpu max_rss classes methods findings
    med_wall=$(median "${walls[@]}")
    min_wall=$(printf '%s\n' "${walls[@]}" | sort -g | head -n 1)
    med_cpu=$(median "${cpus[@]}")
    max_rss=$(printf '%s\n' "${rsss[@]}" | sort -g | tail -n 1)
    classes=$(fact "$facts" classes)
    methods=$(fact "$facts" methods)
    findings=$(fact "$facts" findings)

    # Same counts in every run? (The analysis is meant to be deterministic.)
    local distinct
    distinct=$(for i in "${okruns[@]}"; do grep -E '^(classes|methods|findings|rule) ' "$dir/run$i.facts" | md5sum; done | sort -u | wc -l)

    echo
    echo "  $name (${#okruns[@]} run(s); counts from run $med_run, the median run)"
    row "classes" "$(group "$classes")"
    row "methods" "$(group "$methods")"
    row "findings" "$(group "$findings")"
    local r n
    for r in "${rule_ids[@]}"; do
        n=$(awk -v r="$r" '$1 == "rule" && $2 == r { print $3 }' "$facts")
        row "  $r" "$(group "${n:-0}")"
    done
    while read -r _ r n; do
        [[ " ${rule_ids[*]} " == *" $r "* ]] || row "  $r" "$(group "$n")" "(rule not listed by \`stalecheck rules\`)"
    done < <(grep '^rule ' "$facts" || true)
    local nprob bysev
    nprob=$(awk '$1 == "problem" { s += $3 } END { print s + 0 }' "$facts")
    bysev=$(awk '$1 == "problem" { printf "%s%s: %s", sep, $2, $3; sep = ", " }' "$facts")
    row "input problems" "$(group "$nprob")" "${bysev:+($bysev)}"
    row "wall time, median" "$(printf '%.2f s' "$med_wall")" "(min $(printf '%.2f' "$min_wall") s over ${#okruns[@]} run(s))"
    row "CPU user+sys, median" "$(printf '%.2f s' "$med_cpu")" \
        "($(ratio "$(calc "$med_cpu * 100")" "$med_wall" '%.0f%%') of the median wall; $(nproc) CPUs = $(($(nproc) * 100))% at most)"
    row "peak RSS, max over runs" "$(printf '%.0f MB' "$(calc "$max_rss * 1024 / 1e6")")" "(MB = 10^6 bytes)"
    local cps
    cps=$(ratio "$classes" "$med_wall" '%.0f')
    [[ $cps == n/a ]] || cps=$(group "$cps")
    row "classes per second" "$cps" "(classes / median wall)"
    echo "  phase timings of run $med_run (the median run, wall $(printf '%.2f' "${wall_of[med_run]}") s):"
    print_phases "$dir/run$med_run.err" "${wall_of[med_run]}"

    if ((distinct > 1)); then
        echo "  NOTE: the counts of classes, methods or findings differ between runs (nondeterminism?)"
    fi
    if ((classes == 0)); then
        echo "  NOTE: no class was scanned"
    fi

    # Targets (from the issue). Figures only: a MISS does not fail the script.
    if [[ $name == jdk ]]; then
        echo "  targets (issue: all ~26,600 JDK 17 classes parsed and analysed by both rules"
        echo "  in under 3 s wall and under 1.5 GB, on this 2-core machine):"
        if [[ $(calc "$med_wall < 3.0") == 1 ]]; then line=PASS; else line=MISS; fi
        printf '    %-4s  wall %.2f s (median), target < 3.0 s\n' "$line" "$med_wall"
        if [[ $(calc "$max_rss * 1024 / 1e6 < 1500") == 1 ]]; then line=PASS; else line=MISS; fi
        printf '    %-4s  peak RSS %.0f MB (max over runs), target < 1500 MB\n' "$line" "$(calc "$max_rss * 1024 / 1e6")"
        echo "    info  $(group "$classes") classes scanned (the issue counts ~26,600 in JDK 17)"
    fi
    if [[ $name == jdk-open-world ]]; then
        echo "  targets (issue: the JDK 17 modules in open-world mode with all rules"
        echo "  in under 10 s wall and under 3 GB, on this 2-core machine):"
        if [[ $(calc "$med_wall < 10.0") == 1 ]]; then line=PASS; else line=MISS; fi
        printf '    %-4s  wall %.2f s (median), target < 10.0 s\n' "$line" "$med_wall"
        if [[ $(calc "$max_rss * 1024 / 1e6 < 3000") == 1 ]]; then line=PASS; else line=MISS; fi
        printf '    %-4s  peak RSS %.0f MB (max over runs), target < 3000 MB\n' "$line" "$(calc "$max_rss * 1024 / 1e6")"
    fi

    local nerr
    nerr=$(awk '$1 == "problem" && $2 == "error" { print $3 }' "$facts")
    if [[ -n $nerr && $nerr != 0 ]]; then
        echo "  FAILED: $nerr input problem(s) of severity error: classes were lost:"
        grep '^error ' "$facts" | cut -d' ' -f2- | awk -F'\t' '{ printf "    %s: %s\n", $1, $2 }'
        ((nerr <= 20)) || echo "    ... (the first 20 are shown)"
        failed="${failed:+$failed; }$nerr input problem(s) of severity error (first: $(grep -m1 '^error ' "$facts" | cut -d' ' -f2- | sed 's/\t/: /'))"
    fi
    if [[ -n $failed ]]; then
        failures+=("$name: $failed")
    else
        measured=$((measured + 1))
    fi
}

skipped=0
corpus_no=0
for c in "${corpora[@]}"; do
    if ! resolve "$c"; then
        skipped=$((skipped + 1))
        continue
    fi
    bench_corpus "$c"
done

echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
if ((${#failures[@]})); then
    echo "FAILED (exit 1), ${#failures[@]} corpus(es):"
    printf '  %s\n' "${failures[@]}"
    exit 1
fi
if ((measured == 0)); then
    echo "FAILED: no corpus could be measured (all skipped)"
    exit 1
fi
skipped_note=""
((skipped == 0)) || skipped_note=", $skipped skipped"
echo "done: $measured corpus(es) measured$skipped_note (a MISS is a figure, not a failure)"
