#!/usr/bin/env python3
"""Renders an HTML report in real headless Chromium and checks what a reader would see:
the DOM Chromium built carries the given numbers, and the screenshot is not blank (several
distinct colours, enough non-white pixels: the charts and tables were drawn).

usage:
  check_html_in_chromium.py --chromium PATH [--produce-with TEST_BINARY CASE_NAME] --out DIR
                            [--html FILE] [--expect TEXT ...]

--produce-with runs `TEST_BINARY --test-case=CASE_NAME` with MCP_LOADTEST_HTML_CHECK_DIR=DIR
first: the case writes DIR/report.html and DIR/report.expect.json ({"numbers": [...]}), the
texts the page must show. Without it, --html names the page and --expect the texts (plus
FILE's .expect.json beside it, when present). Every step is bounded by a timeout.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time


def fail(message):
    print("FAILED: " + message)
    sys.exit(1)


def run(cmd, timeout, env=None):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, env=env,
                              text=True, errors="replace")
    except subprocess.TimeoutExpired:
        fail(f"{cmd[0]} did not finish within {timeout} s: {' '.join(cmd)}")


def chromium_args(chromium, profile):
    return [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
            f"--user-data-dir={profile}"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--produce-with", nargs=2, metavar=("TEST_BINARY", "CASE_NAME"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--html")
    ap.add_argument("--expect", nargs="*", default=[])
    ap.add_argument("--timeout", type=int, default=90)
    ap.add_argument("--min-colours", type=int, default=6)
    ap.add_argument("--min-ink", type=float, default=0.02, help="fraction of non-white pixels")
    args = ap.parse_args()

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.produce_with:
        binary, case = args.produce_with
        for stale in ("report.html", "report.expect.json"):
            (out / stale).unlink(missing_ok=True)
        env = dict(os.environ, MCP_LOADTEST_HTML_CHECK_DIR=str(out))
        r = run([binary, f"--test-case={case}"], args.timeout, env)
        if r.returncode != 0:
            fail(f"{binary} --test-case={case} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        html = out / "report.html"
    else:
        if not args.html:
            fail("give --html FILE or --produce-with TEST_BINARY CASE_NAME")
        html = pathlib.Path(args.html)
    if not html.is_file():
        fail(f"{html} was not written (did the test case run? it must not be filtered out)")
    expected = list(args.expect)
    sidecar = html.with_suffix(".expect.json")
    if sidecar.is_file():
        expected += json.loads(sidecar.read_text())["numbers"]
    if not expected:
        fail("no expected text to look for: give --expect or write " + str(sidecar))

    url = html.resolve().as_uri()
    with tempfile.TemporaryDirectory(prefix="mcp-loadtest-chromium-") as profile:
        base = chromium_args(args.chromium, profile)
        t0 = time.monotonic()
        dom = run(base + ["--dump-dom", url], args.timeout)
        dom_s = time.monotonic() - t0
        if dom.returncode != 0 or "<html" not in dom.stdout:
            fail(f"chromium --dump-dom failed ({dom.returncode}):\n{dom.stderr[-2000:]}")
        shot = out / "report.png"
        shot.unlink(missing_ok=True)
        t0 = time.monotonic()
        r = run(base + [f"--screenshot={shot}", "--window-size=1200,2000", url], args.timeout)
        shot_s = time.monotonic() - t0
        if r.returncode != 0 or not shot.is_file():
            fail(f"chromium --screenshot failed ({r.returncode}):\n{r.stderr[-2000:]}")

    missing = [e for e in expected if e not in dom.stdout and e.replace("&", "&amp;") not in dom.stdout]
    if missing:
        fail(f"the DOM Chromium built from {html} lacks: {missing}")
    if dom.stdout.count("<svg") < 3:
        fail(f"the DOM holds {dom.stdout.count('<svg')} <svg> charts, expected at least 3")

    from PIL import Image  # imported late: CMake registers this test only where PIL is found
    image = Image.open(shot).convert("RGB")
    small = image.resize((image.width // 4, image.height // 4))
    pixels = list(small.getdata())
    colours = len(set(pixels))
    ink = sum(1 for p in pixels if min(p) < 235) / len(pixels)
    if colours < args.min_colours:
        fail(f"the screenshot {shot} has {colours} distinct colours (at least {args.min_colours} expected): blank?")
    if ink < args.min_ink:
        fail(f"the screenshot {shot} is {ink:.1%} non-white (at least {args.min_ink:.0%} expected): blank?")
    print(f"ok: {html} ({html.stat().st_size} bytes) rendered in Chromium: DOM has all {len(expected)} expected "
          f"texts and {dom.stdout.count('<svg')} charts; screenshot {image.width}x{image.height}, {colours} colours, "
          f"{ink:.1%} non-white; dump-dom {dom_s:.2f} s, screenshot {shot_s:.2f} s")


if __name__ == "__main__":
    main()
