#!/usr/bin/env python3
"""Every physical location of a SARIF file points at a real file under the repository root.

    sarif-locations.py REPORT.sarif ROOT

Walks every `artifactLocation` (results' locations, related locations, code-flow steps, ...) and
every `artifacts[].location`, resolves its `uri` (relative to ROOT, or a `file:` URI) and fails,
listing them, when one does not name an existing file under ROOT. Used by the Gradle and Maven
plugins' real-build tests on multi-module builds.
"""
import json
import os
import sys
from urllib.parse import unquote, urlparse


def locations(node, out):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "artifactLocation" and isinstance(value, dict):
                out.append(value)
            elif key == "artifacts" and isinstance(value, list):
                out.extend(a["location"] for a in value if isinstance(a, dict) and "location" in a)
            locations(value, out)
    elif isinstance(node, list):
        for item in node:
            locations(item, out)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    report, root = sys.argv[1], os.path.realpath(sys.argv[2])
    with open(report, encoding="utf-8") as f:
        sarif = json.load(f)
    found = []
    locations(sarif, found)
    bad = []
    uris = set()
    for loc in found:
        uri = loc.get("uri")
        if uri is None:
            bad.append(f"{loc}: no uri")
            continue
        parsed = urlparse(uri)
        if parsed.scheme == "file":
            path = unquote(parsed.path)
        elif parsed.scheme:
            bad.append(f"{uri}: not a file")
            continue
        else:
            path = os.path.join(root, unquote(uri))
        path = os.path.realpath(path)
        uris.add(uri)
        if not (path.startswith(root + os.sep) and os.path.isfile(path)):
            bad.append(f"{uri}: no such file under {root}")
    if not found:
        print(f"{report}: no locations at all", file=sys.stderr)
        return 1
    if bad:
        print(f"{report}: {len(bad)} of {len(found)} locations do not resolve:", file=sys.stderr)
        for line in sorted(set(bad)):
            print(f"  {line}", file=sys.stderr)
        return 1
    print(f"{report}: all {len(found)} locations resolve ({len(uris)} files: {', '.join(sorted(uris))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
