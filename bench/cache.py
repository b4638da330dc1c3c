#!/usr/bin/env python3
"""bench/cache.py: the summary cache on a module scan with ~200 dependency jars.

The module is one jar of the local Maven repository (default: quartz 2.5.0, a scheduler
library that synchronizes); its classpath is the newest version of every other artifact in
~/.m2/repository (and, when fewer than --deps, the jars of /usr/share/java), as a build would
pass them. Scans, side by side in one run, each --runs times (the median is printed):

  no cache   stalecheck scan --no-cache ...
  cold       stalecheck scan --cache DIR ...   (DIR emptied before each run)
  warm       stalecheck scan --cache DIR ...   (DIR as the previous scan left it)

and prints their wall times, the speed-up of warm over cold and over no cache, the cache's
size, and whether the outputs are the same bytes: the JSON of all three, and the SARIF of cold
and warm (same command line; the no-cache SARIF differs in its recorded arguments only, so it
is compared without them). A measurement, not a test: a missed target prints MISS and the
script exits 0; it exits 1 when outputs differ or a scan fails, 2 on a usage error.

Usage: bench/cache.py [--runs N] [--deps N] [--module JAR] [--bin PATH] [--skip-build]
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
M2 = Path.home() / ".m2" / "repository"
DEFAULT_MODULE = M2 / "org/quartz-scheduler/quartz/2.5.0/quartz-2.5.0.jar"
TARGET = 5.0
# Peak RSS (KB) of the last scans, appended by scan().
PEAK_KB = []


def newest_jars():
    """The newest version's main jar of every artifact under ~/.m2/repository."""
    by_artifact = {}
    for jar in sorted(M2.rglob("*.jar")):
        name = jar.name
        if any(s in name for s in ("-sources", "-javadoc", "-tests")) or jar.stat().st_size < 2048:
            continue
        version_dir = jar.parent
        artifact = version_dir.parent
        if not name.startswith(artifact.name + "-" + version_dir.name):
            continue
        # Sorted paths: a later version directory of the same artifact replaces an earlier one
        # (lexical order, good enough to pick one version of each).
        by_artifact[artifact] = jar
    return sorted(by_artifact.values())


def scan(binary, module, cp_file, cache_args, fmt, out, cwd):
    cmd = [
        str(binary), "scan", "--no-progress", "--format", fmt, "--output", out,
        "--classpath", "@" + str(cp_file), *cache_args, "--", str(module),
    ]
    env = dict(os.environ, STALECHECK_TIMINGS="1")
    rss_file = Path(cwd) / "rss.txt"
    t = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(rss_file), *cmd], cwd=cwd, env=env,
                       capture_output=True, text=True)
    wall = time.monotonic() - t
    PEAK_KB.append(int(rss_file.read_text().split()[-1]))
    if p.returncode not in (0, 1):
        sys.stderr.write(p.stderr[-3000:])
        sys.exit(f"bench/cache.py: the scan failed with exit {p.returncode}: {' '.join(cmd)}")
    hits = re.search(r"timings: cache: (\d+) hits, (\d+) misses", p.stderr)
    return wall, (hits.group(0) if hits else "no cache line"), p.stderr


def without_command_line(path):
    v = json.loads(Path(path).read_text())
    for run in v.get("runs", []):
        for inv in run.get("invocations", []):
            inv.pop("commandLine", None)
            inv.pop("arguments", None)
    return v


def du(path):
    return sum(f.stat().st_size for f in Path(path).glob("*.entry"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--deps", type=int, default=200)
    ap.add_argument("--module", type=Path, default=DEFAULT_MODULE)
    ap.add_argument("--bin", type=Path, default=ROOT / "target/release/stalecheck")
    ap.add_argument("--skip-build", action="store_true")
    a = ap.parse_args()
    if not a.module.is_file():
        print(f"bench/cache.py: no module jar {a.module} (fetch it with Maven, or pass --module)", file=sys.stderr)
        return 2
    if not a.skip_build:
        subprocess.run(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT, check=True)
    deps = [j for j in newest_jars() if j.resolve() != a.module.resolve()]
    if len(deps) < a.deps:
        usj = sorted(p for p in Path("/usr/share/java").glob("*.jar") if p.is_file() and not p.is_symlink())
        deps += usj[: a.deps - len(deps)]
    deps = deps[: a.deps]
    work = Path(tempfile.mkdtemp(prefix="stalecheck-bench-cache-"))
    cp_file = work / "classpath.txt"
    cp_file.write_text("\n".join(str(d) for d in deps) + "\n")
    cache = work / "cache"
    size_mb = sum(d.stat().st_size for d in deps) / 1e6
    print(f"bench/cache.py  {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    print(f"machine: {os.cpu_count()} cores; load at start: {os.getloadavg()}")
    print(f"binary: {a.bin}")
    print(f"module: {a.module} ({a.module.stat().st_size / 1e6:.1f} MB)")
    print(f"classpath: {len(deps)} jars, {size_mb:.0f} MB (list in {cp_file})")
    cache_args = ["--cache", str(cache)]
    times = {"no cache": [], "cold": [], "warm": []}
    peaks = {"no cache": [], "cold": [], "warm": []}
    lines = {}
    for r in range(a.runs):
        # Side by side in each round: machine speed drifts.
        t, _, _ = scan(a.bin, a.module, cp_file, ["--no-cache"], "json", "nocache.json", work)
        times["no cache"].append(t)
        peaks["no cache"].append(PEAK_KB[-1])
        shutil.rmtree(cache, ignore_errors=True)
        t, lines["cold"], _ = scan(a.bin, a.module, cp_file, cache_args, "json", "cold.json", work)
        times["cold"].append(t)
        peaks["cold"].append(PEAK_KB[-1])
        t, lines["warm"], err = scan(a.bin, a.module, cp_file, cache_args, "json", "warm.json", work)
        times["warm"].append(t)
        peaks["warm"].append(PEAK_KB[-1])
        lines["warm timings"] = [l for l in err.splitlines() if l.startswith("timings: ") and ("load" in l or "cache" in l or "reach:" in l)]
    # SARIF: cold and warm with the same command line, and without the cache.
    shutil.rmtree(cache, ignore_errors=True)
    scan(a.bin, a.module, cp_file, cache_args, "sarif", "out.sarif", work)
    os.replace(work / "out.sarif", work / "cold.sarif")
    scan(a.bin, a.module, cp_file, cache_args, "sarif", "out.sarif", work)
    scan(a.bin, a.module, cp_file, ["--no-cache"], "sarif", "nocache.sarif", work)
    same_json = (work / "cold.json").read_bytes() == (work / "warm.json").read_bytes() == (work / "nocache.json").read_bytes()
    same_sarif = (work / "cold.sarif").read_bytes() == (work / "out.sarif").read_bytes()
    same_sarif_nc = without_command_line(work / "cold.sarif") == without_command_line(work / "nocache.sarif")
    med = {k: statistics.median(v) for k, v in times.items()}
    print()
    print(f"| scan ({a.runs} runs, median) | wall s | min s | peak RSS MB |")
    print("| --- | --- | --- | --- |")
    for k, v in times.items():
        print(f"| {k} | {med[k]:.2f} | {min(v):.2f} | {max(peaks[k]) * 1024 / 1e6:.0f} |")
    speedup = med["cold"] / med["warm"]
    print()
    print(f"cold: {lines['cold']}; warm: {lines['warm']}")
    for l in lines["warm timings"]:
        print(f"  warm {l}")
    print(f"cache size: {du(cache) / 1e6:.0f} MB in {len(list(cache.glob('*.entry')))} entries")
    print(f"speed-up warm over cold: {speedup:.2f}x ({'OK' if speedup >= TARGET else 'MISS'}: target {TARGET:.0f}x)")
    print(f"speed-up warm over no cache: {med['no cache'] / med['warm']:.2f}x")
    print(f"same JSON bytes (no cache, cold, warm): {'yes' if same_json else 'NO'}")
    print(f"same SARIF bytes (cold, warm): {'yes' if same_sarif else 'NO'}; same SARIF as no cache but the command line: {'yes' if same_sarif_nc else 'NO'}")
    print(f"load at end: {os.getloadavg()}")
    shutil.rmtree(work, ignore_errors=True)
    return 0 if (same_json and same_sarif and same_sarif_nc) else 1


if __name__ == "__main__":
    sys.exit(main())
