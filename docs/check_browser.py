"""Open the built site in headless Chromium and check what a reader sees (`python docs/check_browser.py`).

The site is served over HTTP from `docs/_build/html` (search needs it) and driven through the Chrome
DevTools protocol (package `websocket-client`, in the `docs` extra). Checked on every page: each image
loaded, no JavaScript error or failed request in the console. On the paper chapter: MathJax rendered
every equation (each `.math` element holds MathJax output, no raw `$$` in the visible text). On
`search.html?q=hessian`: the search lists at least one page.

Without Chromium the check says so and exits 0 — except in CI (`CI=true`), where it fails.
`--screenshots DIR` saves a PNG of each page.
"""

from __future__ import annotations

import argparse
import base64
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

SITE = Path(__file__).resolve().parent / "_build" / "html"
PAGES = {
    "index": "index.html",
    "chapter": "taylor_boosting.html",
    "guide": "guides/choosing.html",
    "search": "search.html?q=hessian",
}
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")

# JavaScript run in the page, each an expression whose value is JSON-serialisable.
JS_IMAGES = """Array.from(document.images).map(i => ({src: i.getAttribute('src'), done: i.complete, ok: i.complete && i.naturalWidth > 0}))"""
JS_MATH = """(() => { const m = Array.from(document.querySelectorAll('.math'));
  return {n: m.length, raw: m.filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 60)),
          dollars: (document.body.innerText.match(/\\$\\$/g) || []).length}; })()"""
JS_MATH_READY = """(window.MathJax && MathJax.startup && MathJax.startup.promise) ? MathJax.startup.promise.then(() => true) : false"""
JS_SEARCH = """(() => { const r = document.querySelectorAll('#search-results ul.search li');
  const s = document.querySelector('#search-results .search-summary, #search-results p');
  return {n: r.length, done: !!(s && s.textContent.trim()), summary: s ? s.textContent.trim() : ''}; })()"""


def find_browser() -> str | None:
    return next((p for b in BROWSERS if (p := shutil.which(b))), None)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(root: Path):
    "An HTTP server for `root` on a free local port, in a thread; returns (server, base URL)."
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


class Browser:
    "Headless Chromium with one page, driven over the DevTools protocol; collects console errors."

    def __init__(self, exe: str, timeout: float = 60):
        import websocket  # websocket-client

        self.profile = tempfile.mkdtemp(prefix="mlc_lit_chromium_")
        self.proc = subprocess.Popen(
            [
                exe,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-dev-shm-usage",
                "--remote-debugging-port=0",
                "--window-size=1280,900",
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        port, t0 = None, time.monotonic()
        while port is None and time.monotonic() - t0 < timeout:
            line = self.proc.stderr.readline()
            if not line and self.proc.poll() is not None:
                raise RuntimeError("chromium exited before it listened")
            if m := re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line):
                port = int(m.group(1))
        if port is None:
            raise RuntimeError("chromium did not start its DevTools server")
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()  # drain stderr
        with urllib.request.urlopen(
            urllib.request.Request(f"http://127.0.0.1:{port}/json/new?about:blank", method="PUT")
        ) as r:
            page = json.load(r)
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=timeout, suppress_origin=True)
        self.timeout, self.next_id, self.events, self.errors = timeout, 0, [], []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")

    def _on_event(self, msg):
        m, p = msg.get("method"), msg.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            self.errors.append(
                "console.error: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            )
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.errors.append("exception: " + (d.get("exception", {}).get("description") or d.get("text", "")))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            if not e.get("url", "").endswith("/favicon.ico"):  # the browser asks for it by itself; the site has none
                self.errors.append(f"log: {e.get('text', '')} {e.get('url', '')}".strip())
        self.events.append(m)

    def call(self, method: str, **params):
        self.next_id += 1
        my = self.next_id
        self.ws.send(json.dumps({"id": my, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if "method" in msg:
                self._on_event(msg)

    def evaluate(self, expr: str, await_promise: bool = False):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=await_promise)
        if "exceptionDetails" in r:
            raise RuntimeError(f"page script failed: {r['exceptionDetails'].get('text')}")
        return r.get("result", {}).get("value")

    def open(self, url: str):
        "Navigate to `url` and wait for its load event."
        self.events.clear()
        self.call("Page.navigate", url=url)
        t0 = time.monotonic()
        while "Page.loadEventFired" not in self.events:
            if time.monotonic() - t0 > self.timeout:
                raise TimeoutError(f"{url} did not finish loading")
            msg = json.loads(self.ws.recv())
            if "method" in msg:
                self._on_event(msg)

    def wait_for(self, expr: str, ok, what: str):
        "Poll `expr` until `ok(value)`; return the last value (the caller checks it)."
        t0, value = time.monotonic(), None
        while time.monotonic() - t0 < self.timeout:
            value = self.evaluate(expr)
            if ok(value):
                return value
            time.sleep(0.2)
        return value

    def screenshot(self, path: Path):
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))

    def close(self):
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)


def check_site(site: Path, exe: str, screenshots: Path | None = None, pages: dict = PAGES) -> list[str]:
    "Problems found on `pages` ({kind: path}; kinds 'chapter' and 'search' get their own checks), empty if none."
    httpd, base = serve(site)
    browser, problems = Browser(exe), []
    try:
        for name, rel in pages.items():
            if not (site / rel.split("?")[0]).exists():
                problems.append(f"{name}: no page {rel}")
                continue
            browser.errors.clear()
            browser.open(base + rel)
            found = []
            if name == "search":
                res = browser.wait_for(JS_SEARCH, lambda v: v and v["done"], "search results")
                if not res or res["n"] < 1:
                    problems.append(f"search: no page listed for 'hessian' ({res})")
                found.append(f"{res['n'] if res else 0} search results")
            if name in ("chapter", "guide") or name == "index":
                if browser.evaluate(JS_MATH_READY, await_promise=True):
                    math = browser.evaluate(JS_MATH)
                    if math["raw"]:
                        problems.append(f"{name}: {len(math['raw'])} equations not rendered, e.g. {math['raw'][:2]}")
                    if math["dollars"]:
                        problems.append(f"{name}: raw '$$' left in the text {math['dollars']} times")
                    found.append(f"{math['n']} equations rendered")
                elif name == "chapter":
                    problems.append("chapter: MathJax did not load")
            imgs = browser.wait_for(JS_IMAGES, lambda v: all(i["done"] for i in v), "images")  # loaded or failed
            bad = [i["src"] for i in imgs if not i["ok"]]
            if bad:
                problems.append(f"{name}: {len(bad)} images did not load: {bad[:3]}")
            found.append(f"{len(imgs) - len(bad)}/{len(imgs)} images loaded")
            time.sleep(0.3)
            browser.evaluate("1")  # collect console messages logged after load
            if browser.errors:
                problems.append(f"{name}: console errors: {browser.errors[:3]}")
            found.append(f"{len(browser.errors)} console errors")
            if screenshots:
                screenshots.mkdir(parents=True, exist_ok=True)
                browser.screenshot(screenshots / f"{name}.png")
            print(f"browser: {rel}: " + ", ".join(found), flush=True)
    finally:
        browser.close()
        httpd.shutdown()
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", nargs="?", default=str(SITE), help="the built site (default docs/_build/html)")
    ap.add_argument("--screenshots", type=Path, help="save a PNG of each checked page here")
    a = ap.parse_args(argv)
    in_ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    exe = find_browser()
    if exe is None:
        print(
            f"browser check: no Chromium found ({', '.join(BROWSERS)}): {'FAILED (required in CI)' if in_ci else 'skipped'}"
        )
        return 1 if in_ci else 0
    site = Path(a.site)
    if not (site / "index.html").exists():
        print(f"no site at {site} (run python docs/build.py first)")
        return 1
    t0 = time.perf_counter()
    problems = check_site(site, exe, a.screenshots)
    for p in problems:
        print("PROBLEM", p)
    print(
        f"browser check: {len(PAGES)} pages in {Path(exe).name}, {len(problems)} problems ({time.perf_counter() - t0:.1f} s)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
