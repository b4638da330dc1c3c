#!/usr/bin/env python3
"""bench/scale.py: how a scan grows with the classpath.

The corpus: the JDK's modules ($JAVA_HOME/jmods), the jars Debian's Java packages install
(/usr/share/java, each real file once) and the pinned Maven Central jars of
bench/scale-corpus.txt (fetched with `mvn dependency:get` when missing). The inputs are put in
one fixed order (mixed: by a hash of their file name) and cut at 25/50/75/100% of the distinct
classes; each prefix is scanned with all rules, in the default mode (`--world auto`: the
corpus's jars with a Main-Class that starts threads make it an application, a closed world; the
`world` column says what each scan chose) and with --open-world, under /usr/bin/time -v, by every binary given (side by side, in one run, since the
machine's speed drifts). Prints a table of wall time and peak RSS, and whether the binaries'
outputs are byte-identical.

    bench/scale.py                                    # target/release/stalecheck, the whole table
    bench/scale.py --bin base=/tmp/stalecheck-base --bin new=target/release/stalecheck
    bench/scale.py --fractions 25,100 --modes default --timeout 300

A measurement, not a test: a missed target is printed as MISS, the script exits 0. It exits 1
when a scan crashed or wrote no report, 2 on a usage error or a missing tool.
"""

import argparse
import glob
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORKDIR = os.path.join(ROOT, "target", "scale")
M2 = os.environ.get("M2_REPO", os.path.expanduser("~/.m2/repository"))


def die(msg):
    print(f"bench/scale.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def java_home():
    if os.environ.get("JAVA_HOME"):
        return os.environ["JAVA_HOME"]
    for cand in sorted(glob.glob("/usr/lib/jvm/java-17-openjdk-*")):
        return cand
    return None


def maven_jars(fetch):
    jars = []
    with open(os.path.join(HERE, "scale-corpus.txt")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            g, a, v = line.split(":")
            path = os.path.join(M2, *g.split("."), a, v, f"{a}-{v}.jar")
            if not os.path.isfile(path) and fetch:
                subprocess.run(
                    ["mvn", "-q", "-B", "dependency:get", f"-Dartifact={line}",
                     "-Dtransitive=false", f"-Dmaven.repo.local={M2}"],
                    stdout=subprocess.DEVNULL, check=False)
            if os.path.isfile(path):
                jars.append(path)
            else:
                print(f"note: {line} is missing (not fetched)", file=sys.stderr)
    return jars


def class_names(path):
    try:
        with open(path, "rb") as f:
            z = zipfile.ZipFile(f)
            return [n for n in z.namelist()
                    if n.endswith(".class") and not n.endswith("module-info.class")]
    except (zipfile.BadZipFile, OSError):
        return []


def corpus(fetch):
    inputs = []
    jh = java_home()
    if jh and os.path.isdir(os.path.join(jh, "jmods")):
        inputs += sorted(glob.glob(os.path.join(jh, "jmods", "*.jmod")))
    else:
        print("note: no JDK jmods found; the corpus is smaller", file=sys.stderr)
    if os.path.isdir("/usr/share/java"):
        inputs += sorted({os.path.realpath(p) for p in glob.glob("/usr/share/java/*.jar")})
    inputs += maven_jars(fetch)
    # One fixed, mixed order; java.base first (every program runs on it).
    def key(p):
        base = os.path.basename(p)
        return (base != "java.base.jmod", hashlib.sha1(base.encode()).hexdigest())
    inputs.sort(key=key)
    seen = set()
    counted = []
    for p in inputs:
        names = [n for n in class_names(p) if n not in seen]
        if not names:
            continue
        seen.update(names)
        counted.append((p, len(names)))
    return counted


def cut(counted, percent):
    total = sum(n for _, n in counted)
    goal = total * percent / 100
    acc = 0
    out = []
    for p, n in counted:
        if acc >= goal:
            break
        out.append(p)
        acc += n
    return out, acc


def run(binary, inputs, open_world, timeout, extra):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        args_file = os.path.join(tmp, "inputs")
        cmd = ["/usr/bin/time", "-v", binary, "scan", "--rules", "all", "--format", "json",
               "--output", out, "--lenient", "--no-progress"] + extra
        if open_world:
            cmd.append("--open-world")
        cmd += ["--"] + inputs
        with open(args_file, "w") as f:
            f.write("\n".join(cmd))
        env = dict(os.environ, STALECHECK_TIMINGS="1")
        t0 = time.monotonic()
        # Run where no stalecheck.toml is found upwards (the temp dir's parents may hold one),
        # in a process group of its own: on a timeout the scan itself is killed, not only
        # /usr/bin/time (a scan left running would slow every later row).
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env=env, text=True, errors="replace", cwd=WORKDIR,
                                start_new_session=True)
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return {"status": f"timeout {timeout:g}s", "wall": None, "rss": None, "out": None,
                    "whole": None}
        p = subprocess.CompletedProcess(cmd, proc.returncode, None, err)
        wall_fallback = time.monotonic() - t0
        err = p.stderr
        wall = wall_fallback
        m = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):(\d+(?:\.\d+)?)", err)
        if m:
            wall = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
        rss = int(m.group(1)) * 1024 if m else None
        m = re.search(r"timings: load .*whole-program ([0-9.]+)(ms|s|µs)", err)
        whole = None
        if m:
            whole = float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
        status = "ok"
        if p.returncode >= 2 or not os.path.isfile(out):
            status = f"crash (exit {p.returncode})"
        data = None
        if os.path.isfile(out):
            with open(out, "rb") as f:
                data = f.read()
        return {"status": status, "wall": wall, "rss": rss, "out": data, "whole": whole}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", action="append", default=[],
                    help="NAME=PATH of a stalecheck binary (repeatable) "
                         "[default: new=target/release/stalecheck]")
    ap.add_argument("--fractions", default="25,50,75,100")
    ap.add_argument("--modes", default="default,open-world")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per scan")
    ap.add_argument("--no-fetch", action="store_true", help="do not run mvn for missing jars")
    ap.add_argument("--no-cache", action="store_true",
                    help="pass --no-cache to the binaries (when they know it)")
    ap.add_argument("--print-inputs", type=float, metavar="PCT",
                    help="print the inputs of PCT%% of the corpus, one a line, and exit")
    a = ap.parse_args()
    if a.print_inputs:
        for p in cut(corpus(not a.no_fetch), a.print_inputs)[0]:
            print(p)
        return
    if not os.path.exists("/usr/bin/time"):
        die("GNU time is missing at /usr/bin/time (apt-get install time)")
    bins = []
    for b in a.bin or [f"new={os.path.join(ROOT, 'target/release/stalecheck')}"]:
        name, _, path = b.partition("=")
        if not os.access(path, os.X_OK):
            die(f"{path} is not an executable")
        bins.append((name, path))
    fractions = [float(x) for x in a.fractions.split(",")]
    modes = a.modes.split(",")

    os.makedirs(WORKDIR, exist_ok=True)
    counted = corpus(not a.no_fetch)
    total = sum(n for _, n in counted)
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} CPUs, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"corpus: {len(counted)} inputs, {total} distinct classes")
    for name, path in bins:
        v = subprocess.run([path, "--version"], capture_output=True, text=True).stdout.strip()
        print(f"binary {name}: {path} ({v})")
    print()
    header = "| mode | world | corpus | class entries | classes scanned | " + " | ".join(
        f"{n}: wall | {n}: whole-program | {n}: peak RSS" for n, _ in bins) + " | same output |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    bad = False
    for mode in modes:
        for frac in fractions:
            inputs, n = cut(counted, frac)
            cells = []
            outs = []
            for name, path in bins:
                extra = ["--no-cache"] if a.no_cache and name != "base" else []
                r = run(path, inputs, mode == "open-world", a.timeout, extra)
                if r["status"].startswith("crash"):
                    bad = True
                wall = f"{r['wall']:.1f} s" if r["wall"] is not None else r["status"]
                if r["status"] not in ("ok",) and r["wall"] is not None:
                    wall += f" ({r['status']})"
                whole = f"{r['whole']:.1f} s" if r["whole"] is not None else "-"
                rss = f"{r['rss'] / 1e9:.2f} GB" if r["rss"] else "-"
                cells += [wall, whole, rss]
                outs.append(r["out"])
                sys.stdout.flush()
            done = [o for o in outs if o is not None]
            scanned = "-"
            world = "-"
            for o in done:
                try:
                    summary = json.loads(o)["summary"]
                    scanned = str(summary["classes"])
                    # The world the scan chose ("closed world: an application (auto; ...)").
                    world = str(summary.get("world", "-")).split(" (")[0]
                    break
                except (ValueError, KeyError):
                    pass
            same = "-" if len(done) < 2 else ("yes" if all(o == done[0] for o in done) else "NO")
            print(f"| {mode} | {world} | {frac:g}% | {n} | {scanned} | " + " | ".join(cells)
                  + f" | {same} |", flush=True)
    load = os.getloadavg()
    print(f"\nload at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
