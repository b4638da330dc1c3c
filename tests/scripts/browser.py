#!/usr/bin/env python3
"""Open a stalecheck HTML report in a real headless Chromium and check it.

    browser.py REPORT.html OUTDIR [--finding N]... [--chromium PATH]

Talks to Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: commands on
fd 3, replies on fd 4, NUL-terminated JSON), with the standard library only. It loads the page,
waits for the load event and the first frame after it, collects console errors and uncaught
exceptions, counts the findings and the rendered diagrams, takes a screenshot of the overview
(OUTDIR/overview.png) and of each --finding N (OUTDIR/finding-N.png), then reloads the page with
JavaScript disabled and checks that the findings are still there.

Prints one JSON object (timings in milliseconds, counts, errors, screenshots) and exits 1 when
the page logged a console error, threw, or a finding's diagram is missing or not drawn.
"""

import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, exe):
        self.profile = tempfile.mkdtemp(prefix="stalecheck-chromium-")
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()

        def wire():
            # Copies first: a pipe end may already be fd 3 or 4 (and close on exec).
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3, inheritable=True)
            os.dup2(b, 4, inheritable=True)

        self.proc = subprocess.Popen(
            [
                exe,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
                "--user-data-dir=" + self.profile,
                "--window-size=1280,900",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            close_fds=False,
        )
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from Chromium")
            r, _, _ = select.select([self.from_r], [], [], left)
            if r:
                chunk = os.read(self.from_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, name, timeout=60):
        for i, e in enumerate(self.events):
            if e.get("method") == name:
                return self.events.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("method") == name:
                return m
            self.events.append(m)

    def eval(self, expr, await_promise=False):
        r = self.call(
            "Runtime.evaluate",
            {"expression": expr, "returnByValue": True, "awaitPromise": await_promise},
        )
        if "exceptionDetails" in r:
            raise RuntimeError(f"evaluating {expr!r}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def close(self):
        try:
            self.call("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def errors_in(events):
    out = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("exception: " + d.get("exception", {}).get("description", d.get("text", "")))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console." + p["type"] + ": " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append("log: " + p["entry"].get("text", ""))
    return out


def screenshot(b, path, clip=None):
    params = {"format": "png", "captureBeyondViewport": True}
    if clip:
        params["clip"] = dict(clip, scale=1)
    data = b.call("Page.captureScreenshot", params)["data"]
    with open(path, "wb") as f:
        f.write(base64.b64decode(data))


FRAME = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now()))))"

CHECK = """(() => {
  if (window.stalecheckShowAll) window.stalecheckShowAll();
  const sections = document.querySelectorAll('section.finding');
  const bad = [];
  let drawn = 0;
  for (const s of sections) {
    const d = s.querySelector('svg.diagram');
    if (!d) { if (s.querySelector('ol.steps li')) bad.push(s.id + ': no diagram'); continue; }
    const u = d.querySelector('use');
    const ref = u && (u.getAttribute('href') || '').slice(1);
    const sym = ref && document.getElementById(ref);
    if (!sym) { bad.push(s.id + ': diagram shape ' + ref + ' missing'); continue; }
    if (sym.querySelectorAll('circle').length === 0) { bad.push(s.id + ': diagram has no step'); continue; }
    drawn++;
  }
  const countRows = () => document.querySelectorAll('#findings tbody tr').length
                || document.querySelectorAll('table.findings tbody tr').length;
  const rows = countRows();
  // The table shows its rows a page at a time: "Show more rows" until every one is there.
  const more = document.getElementById('more-rows');
  const moreShown = !!more && !more.hidden;
  for (let i = 0; more && !more.hidden && i < 1000; i++) more.firstChild.click();
  return {findings: sections.length, diagrams: drawn, bad: bad.slice(0, 20),
          rows: rows, more_shown: moreShown, all_rows: countRows(),
          filter_shown: !document.getElementById('filter').hidden};
})()"""


def main():
    args = sys.argv[1:]
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    findings = []
    rest = []
    i = 0
    while i < len(args):
        if args[i] == "--finding":
            findings.append(int(args[i + 1]))
            i += 2
        elif args[i] == "--chromium":
            exe = args[i + 1]
            i += 2
        else:
            rest.append(args[i])
            i += 1
    if len(rest) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    if not exe:
        print("chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 2
    report, outdir = os.path.abspath(rest[0]), rest[1]
    os.makedirs(outdir, exist_ok=True)
    url = "file://" + report
    b = Browser(exe)
    result = {"report": report, "bytes": os.path.getsize(report), "screenshots": []}
    try:
        target = b.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        b.session = b.call("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            b.call(domain + ".enable")
        b.call("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        b.events.clear()
        t0 = time.monotonic()
        b.call("Page.navigate", {"url": url})
        b.wait_event("Page.loadEventFired", timeout=120)
        frame = b.eval(FRAME, await_promise=True)
        wall = (time.monotonic() - t0) * 1000
        nav = b.eval("(() => { const n = performance.getEntriesByType('navigation')[0]; return {dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd}; })()")
        result["timings_ms"] = {
            "dom_content_loaded": round(nav["dcl"]),
            "load_event_end": round(nav["load"]),
            "first_frame_after_load": round(frame),
            "wall_navigate_to_frame": round(wall),
        }
        check = b.eval(CHECK)
        result.update(check)
        shot = os.path.join(outdir, "overview.png")
        b.eval("window.scrollTo(0, 0)")
        b.eval(FRAME, await_promise=True)
        screenshot(b, shot, {"x": 0, "y": 0, "width": 1280, "height": 900})
        result["screenshots"].append(shot)
        # Lay out every section (they skip rendering off screen), so positions stay put.
        b.eval("document.querySelectorAll('section.finding').forEach(s => s.style.contentVisibility = 'visible')")
        for n in findings:
            rect = b.eval(f"""(() => {{ const s = document.getElementById('f{n}'); if (!s) return null;
                s.scrollIntoView();
                const r = s.getBoundingClientRect();
                return {{x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height}}; }})()""")
            if not rect:
                check["bad"].append(f"f{n}: no such finding")
                continue
            b.eval(FRAME, await_promise=True)
            shot = os.path.join(outdir, f"finding-{n}.png")
            pad = 8
            screenshot(b, shot, {"x": max(0, rect["x"] - pad), "y": max(0, rect["y"] - pad),
                                 "width": rect["width"] + 2 * pad, "height": rect["height"] + 2 * pad})
            result["screenshots"].append(shot)
        # Readable with JavaScript off: the same findings and table, the filter box stays hidden.
        b.call("Emulation.setScriptExecutionDisabled", {"value": True})
        b.call("Page.reload")
        b.wait_event("Page.loadEventFired", timeout=120)
        b.call("Emulation.setScriptExecutionDisabled", {"value": False})
        nojs = b.eval(CHECK)
        result["without_js"] = {k: nojs[k] for k in ("findings", "rows", "diagrams", "filter_shown")}
        result["errors"] = errors_in(b.events)
    finally:
        b.close()
    print(json.dumps(result, indent=1))
    failed = bool(result["errors"]) or bool(result["bad"]) or result["diagrams"] == 0 or \
        result["without_js"]["findings"] != result["findings"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
