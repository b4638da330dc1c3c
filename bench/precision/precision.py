#!/usr/bin/env python3
"""bench/precision/precision.py: scan the precision corpus and print what a user would see.

For each library of corpus.txt (fetched by fetch.sh) it runs the scanner as a new user would
(`stalecheck scan LIB.jar`, the default configuration, plus any --scan-arg), and prints per
library and rule: classes, KLOC of source (non-blank, non-comment lines of the sources jar),
findings (warnings / notes), warnings per KLOC and time. Then, over the findings judged in the
ledger (ledger.tsv, matched by library and `stalecheck/v1` fingerprint), the precision per rule:
the share of judged warnings that are `real` or `benign`. It lists the warnings not judged yet
and the judged findings that are no longer reported (a `real` one gone is lost recall).

    bench/precision/precision.py                       # all libraries, default configuration
    bench/precision/precision.py --libs tomcat,h2      # some of them
    bench/precision/precision.py --scan-arg=--rules=all   # another configuration
    bench/precision/precision.py --unjudged 50          # list up to 50 unjudged warnings
    bench/precision/precision.py --dump todo.tsv       # write unjudged findings as ledger rows

Standard library only. Exit 0 when every scan completed (a missed target is printed, not
failed), 1 when a scan crashed, 2 on a usage error or a missing input.
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VERDICTS = ("real", "benign", "false")
LEDGER_HEADER = ["library", "fingerprint", "rule", "location", "verdict", "reason"]

# The targets of the precision issue.
MAX_WARNINGS_PER_KLOC = 0.1
MIN_PRECISION = 0.80
MIN_RULE_PRECISION = 0.60


def die(msg, code=2):
    print(f"precision.py: error: {msg}", file=sys.stderr)
    sys.exit(code)


def read_corpus():
    libs = []
    with open(os.path.join(HERE, "corpus.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 2:
                continue
            libs.append((parts[0], parts[1], parts[2] if len(parts) > 2 else ""))
    return libs


def jar_path(coords, classifier=None):
    repo = os.environ.get("M2_REPO") or os.path.expanduser("~/.m2/repository")
    g, a, v = coords.split(":")
    suffix = f"-{classifier}" if classifier else ""
    return os.path.join(repo, *g.split("."), a, v, f"{a}-{v}{suffix}.jar")


def code_lines(text):
    """Non-blank lines with code outside comments (strings are skipped over)."""
    n = 0
    in_block = False
    for line in text.splitlines():
        code = False
        i = 0
        L = len(line)
        while i < L:
            if in_block:
                j = line.find("*/", i)
                if j < 0:
                    i = L
                else:
                    in_block = False
                    i = j + 2
                continue
            c = line[i]
            if c == "/" and line.startswith("//", i):
                break
            if c == "/" and line.startswith("/*", i):
                in_block = True
                i += 2
                continue
            if c in "\"'":
                code = True
                j = i + 1
                while j < L and line[j] != c:
                    j += 2 if line[j] == "\\" else 1
                i = j + 1
                continue
            if not c.isspace():
                code = True
            i += 1
        if code:
            n += 1
    return n


def kloc(sources_jar, cache_dir):
    st = os.stat(sources_jar)
    key = f"{os.path.basename(sources_jar)}-{st.st_size}-{int(st.st_mtime)}"
    cache = os.path.join(cache_dir, "kloc-" + key + ".txt")
    if os.path.exists(cache):
        with open(cache) as f:
            return float(f.read())
    total = 0
    with zipfile.ZipFile(sources_jar) as z:
        for name in z.namelist():
            if name.endswith(".java") and not name.endswith("module-info.java"):
                total += code_lines(z.read(name).decode("utf-8", "replace"))
    value = total / 1000.0
    with open(cache, "w") as f:
        f.write(f"{value}")
    return value


def read_ledger(path):
    rows = {}
    if not os.path.exists(path):
        return rows
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            if parts == LEDGER_HEADER:
                continue
            if len(parts) != len(LEDGER_HEADER):
                die(f"{path}:{n}: expected {len(LEDGER_HEADER)} tab-separated columns, got {len(parts)}")
            row = dict(zip(LEDGER_HEADER, parts))
            if row["verdict"] not in VERDICTS:
                die(f"{path}:{n}: verdict must be one of {', '.join(VERDICTS)}, not {row['verdict']!r}")
            if not row["reason"].strip():
                die(f"{path}:{n}: a verdict needs a reason")
            key = (row["library"], row["fingerprint"])
            if key in rows:
                die(f"{path}:{n}: {row['library']} {row['fingerprint']} is judged twice")
            rows[key] = row
    return rows


def location(f):
    return f"{f['class']}.{f['method']}:{f.get('line') or '?'}"


def scan(binary, jar, out_json, extra):
    cmd = [binary, "scan", "--format", "json", "--output", out_json, "--no-progress"] + extra + ["--", jar]
    if os.path.exists(out_json):
        os.remove(out_json)
    t0 = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.monotonic() - t0
    # Exit 2 with a report: part of the jar could not be read (the report's `problems` say
    # what); the rest was scanned, and its findings are scored like before.
    if proc.returncode == 2 and os.path.exists(out_json):
        sys.stderr.write(f"warning: {jar}: input problems (exit 2); scored what was read\n")
        sys.stderr.write(proc.stderr)
    elif proc.returncode not in (0, 1):
        sys.stderr.write(proc.stderr)
        return None, elapsed, f"exit {proc.returncode}"
    with open(out_json, encoding="utf-8") as f:
        return json.load(f), elapsed, None


def rules_of(binary):
    out = subprocess.run([binary, "rules"], capture_output=True, text=True).stdout
    ids = []
    for line in out.splitlines():
        word = line.strip().split(" ")[0] if line.strip() else ""
        if word and all(c.isalnum() or c == "-" for c in word) and "-" in word and word not in ids:
            ids.append(word)
    return ids


def pct(a, b):
    return f"{100.0 * a / b:5.1f}%" if b else "    -"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "stalecheck"))
    ap.add_argument("--libs", help="comma-separated library names (default: all)")
    ap.add_argument("--scan-arg", action="append", default=[], help="an extra argument for `scan`")
    ap.add_argument("--ledger", default=os.path.join(HERE, "ledger.tsv"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "precision"))
    ap.add_argument("--unjudged", type=int, default=10, metavar="N", help="list up to N unjudged warnings")
    ap.add_argument("--dump", metavar="FILE", help="write every unjudged finding as a ledger row to judge")
    ap.add_argument("--dump-notes", action="store_true", help="with --dump: notes too")
    args = ap.parse_args()

    if not os.access(args.binary, os.X_OK):
        die(f"no binary at {args.binary} (cargo build --release -p stalecheck)")
    os.makedirs(args.out, exist_ok=True)
    corpus = read_corpus()
    if args.libs:
        wanted = args.libs.split(",")
        unknown = [w for w in wanted if w not in {c[0] for c in corpus}]
        if unknown:
            die(f"unknown libraries: {', '.join(unknown)}")
        corpus = [c for c in corpus if c[0] in wanted]
    ledger = read_ledger(args.ledger)
    rules = rules_of(args.binary)

    version = subprocess.run([args.binary, "--version"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
    print(f"binary: {args.binary} ({version}); commit {commit}{' + uncommitted changes' if dirty else ''}")
    print(f"scan arguments: {' '.join(args.scan_arg) or '(default configuration)'}; ledger: {os.path.relpath(args.ledger, ROOT)} ({len(ledger)} verdicts)")
    print()

    crashed = False
    totals = collections.Counter()
    all_findings = []  # (library, finding)
    short = {r: "".join(w[0] for w in r.split("-")) for r in rules}
    head = f"{'library':<14} {'classes':>7} {'KLOC':>7} " + " ".join(f"{short[r]:>9}" for r in rules) + f" {'warn':>5} {'w/KLOC':>7} {'time':>6}"
    print("findings per library and rule (warnings/notes)")
    print(head)
    print("-" * len(head))
    for name, coords, _ in corpus:
        jar = jar_path(coords)
        src = jar_path(coords, "sources")
        if not (os.path.exists(jar) and os.path.exists(src)):
            die(f"{name}: {jar} or its sources jar is missing; run bench/precision/fetch.sh")
        k = kloc(src, args.out)
        report, elapsed, err = scan(args.binary, jar, os.path.join(args.out, f"{name}.json"), args.scan_arg)
        if err:
            print(f"{name:<14} scan failed: {err}")
            crashed = True
            continue
        per = collections.Counter()
        for f in report["findings"]:
            if f.get("suppressions"):
                continue
            per[(f["rule"], f["level"])] += 1
            all_findings.append((name, f))
        warnings = sum(v for (r, l), v in per.items() if l in ("warning", "error"))
        cells = []
        for r in rules:
            w = per[(r, "warning")] + per[(r, "error")]
            n = per[(r, "note")]
            cells.append(f"{w}/{n}" if (w or n) else "-")
            totals[(r, "w")] += w
            totals[(r, "n")] += n
        totals["classes"] += report["summary"]["classes"]
        totals["kloc"] += k
        totals["warnings"] += warnings
        totals["time"] += elapsed
        print(f"{name:<14} {report['summary']['classes']:>7} {k:>7.1f} " + " ".join(f"{c:>9}" for c in cells)
              + f" {warnings:>5} {warnings / k if k else 0:>7.3f} {elapsed:>5.2f}s")
    print("-" * len(head))
    cells = [f"{totals[(r, 'w')]}/{totals[(r, 'n')]}" for r in rules]
    k = totals["kloc"]
    print(f"{'total':<14} {totals['classes']:>7} {k:>7.1f} " + " ".join(f"{c:>9}" for c in cells)
          + f" {totals['warnings']:>5} {totals['warnings'] / k if k else 0:>7.3f} {totals['time']:>5.2f}s")
    print("rules: " + ", ".join(f"{short[r]} = {r}" for r in rules))
    wpk = totals["warnings"] / k if k else 0
    print(f"warnings per KLOC: {wpk:.3f} (target <= {MAX_WARNINGS_PER_KLOC}): {'ok' if wpk <= MAX_WARNINGS_PER_KLOC else 'MISS'}")
    print()

    # Precision over the judged findings of this run.
    seen = set()
    judged = collections.defaultdict(collections.Counter)  # rule -> verdict counts (warnings)
    judged_notes = collections.defaultdict(collections.Counter)
    unjudged = []
    for name, f in all_findings:
        key = (name, f.get("fingerprint"))
        seen.add(key)
        row = ledger.get(key)
        warning = f["level"] in ("warning", "error")
        if row is None:
            unjudged.append((name, f))
            continue
        (judged if warning else judged_notes)[f["rule"]][row["verdict"]] += 1
    print("precision over the judged findings (real + benign) / judged")
    print(f"{'rule':<24} {'judged':>6} {'real':>5} {'benign':>6} {'false':>5} {'precision':>9} {'unjudged':>8}")
    unj = collections.Counter(f["rule"] for _, f in unjudged if f["level"] in ("warning", "error"))
    all_ok = True
    tot = collections.Counter()
    for r in rules:
        c = judged[r]
        n = sum(c.values())
        good = c["real"] + c["benign"]
        tot.update(c)
        ok = "" if n == 0 else ("" if good / n >= MIN_RULE_PRECISION else "  MISS (< 60%)")
        all_ok &= not ok
        print(f"{r:<24} {n:>6} {c['real']:>5} {c['benign']:>6} {c['false']:>5} {pct(good, n):>9} {unj[r]:>8}{ok}")
    n = sum(tot.values())
    good = tot["real"] + tot["benign"]
    print(f"{'all warnings':<24} {n:>6} {tot['real']:>5} {tot['benign']:>6} {tot['false']:>5} {pct(good, n):>9} {sum(unj.values()):>8}"
          + ("" if n == 0 or good / n >= MIN_PRECISION else "  MISS (< 80%)"))
    notes = collections.Counter()
    for c in judged_notes.values():
        notes.update(c)
    if notes:
        nn = sum(notes.values())
        print(f"{'(notes, judged)':<24} {nn:>6} {notes['real']:>5} {notes['benign']:>6} {notes['false']:>5} {pct(notes['real'] + notes['benign'], nn):>9}")
    print()

    gone = [row for key, row in sorted(ledger.items()) if key[0] in {c[0] for c in corpus} and key not in seen]
    if gone:
        by = collections.Counter(r["verdict"] for r in gone)
        print(f"judged findings no longer reported: {len(gone)} ({', '.join(f'{by[v]} {v}' for v in VERDICTS if by[v])})")
        for r in gone:
            if r["verdict"] != "false":
                print(f"  LOST {r['verdict']:<6} {r['rule']:<22} {r['library']:<12} {r['location']}  {r['reason']}")
        print()

    warn_unjudged = [(n, f) for n, f in unjudged if f["level"] in ("warning", "error")]
    if warn_unjudged and args.unjudged:
        print(f"unjudged warnings: {len(warn_unjudged)} (first {min(args.unjudged, len(warn_unjudged))})")
        for name, f in warn_unjudged[: args.unjudged]:
            print(f"  {name:<12} {f['rule']:<22} {f.get('fingerprint')}  {location(f)}")
        print()

    if args.dump:
        rows = [(n, f) for n, f in unjudged if args.dump_notes or f["level"] in ("warning", "error")]
        with open(args.dump, "w", encoding="utf-8") as out:
            out.write("\t".join(LEDGER_HEADER) + "\n")
            for name, f in rows:
                out.write("\t".join([name, f.get("fingerprint") or "", f["rule"], location(f), "", ""]) + "\n")
        print(f"wrote {len(rows)} unjudged findings to {args.dump} (fill in verdict and reason)")

    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
