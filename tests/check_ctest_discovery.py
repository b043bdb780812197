#!/usr/bin/env python3
"""Checks mcp_loadtest_discover_tests() for real: configures and builds
tests/consumers/discover_tests (a doctest binary and, when Catch2 is installed,
a Catch2 one, each with load cases and plain tests), then reads
`ctest --show-only=json-v1` and checks that the load cases carry the label,
RESOURCE_LOCK, TIMEOUT (case limit + margin), ATTACHED_FILES and environment,
and that the plain tests do not. Finally it runs one load case through ctest
and checks that its attached files exist.

usage: check_ctest_discovery.py <source dir> <work dir> <cmake generator> [cmake args...]
"""
import json
import os
import shutil
import subprocess
import sys


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    if r.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)}\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}")
    return r.stdout


def main():
    source, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    project = os.path.join(source, "tests", "consumers", "discover_tests")
    build = os.path.join(work, "build")
    os.makedirs(build, exist_ok=True)
    run(["cmake", "-S", project, "-B", build, "-G", sys.argv[3], "-DCMAKE_BUILD_TYPE=", "-DCMAKE_CXX_FLAGS=-O0",
         f"-DMCP_LOADTEST_SOURCE_DIR={source}"] + sys.argv[4:])
    run(["cmake", "--build", build, "-j2"])
    listing = json.loads(run(["ctest", "--test-dir", build, "--show-only=json-v1"]))

    props = {}
    for t in listing["tests"]:
        props[t["name"]] = {p["name"]: p["value"] for p in t.get("properties", [])}
    errors = []

    def expect(cond, what):
        if not cond:
            errors.append(what)

    run_root = os.path.join(build, "mcp-loadtest-runs")
    have_catch2 = any(n.startswith("c:") for n in props)
    # TEST_PREFIX "d: " names them "d:..." (CMake drops the blank; the frameworks' own functions alike).
    expected = {
        # name: (labels, lock, timeout, slug) for load cases; (labels, None, timeout, None) for plain tests
        "d:load one": (["unit", "mcp_loadtest"], "mcp_loadtest_load", 150, "load-one"),
        "d:load two, limited": (["unit", "mcp_loadtest"], "mcp_loadtest_load", 35, "load-two-limited"),
        "d:plain one": (["unit"], None, 20, None),
        "d:plain two": (["unit"], None, 20, None),
    }
    if have_catch2:
        expected["c:catch load"] = (["load", "nightly"], "my_lock", 7, "catch-load")
        expected["c:catch plain"] = (None, None, None, None)
    if any(n.startswith("g:") for n in props):
        expected["g:Load.Limited"] = (["mcp_loadtest"], "mcp_loadtest_load", 40, "load.limited")
        expected["g:Plain.Unit"] = (None, None, None, None)
    expect(sorted(props) == sorted(expected), f"registered tests {sorted(props)}, expected {sorted(expected)}")

    for name, (labels, lock, timeout, slug) in expected.items():
        p = props.get(name)
        if p is None:
            continue
        root = os.path.join(build, "gtest-runs") if name.startswith("g:") else run_root
        got_labels = sorted(p["LABELS"]) if "LABELS" in p else None
        expect(got_labels == (sorted(labels) if labels else None), f"{name}: LABELS {got_labels}, expected {labels}")
        expect(p.get("RESOURCE_LOCK") == ([lock] if lock else None),
               f"{name}: RESOURCE_LOCK {p.get('RESOURCE_LOCK')}, expected {lock}")
        if timeout is not None:
            expect(p.get("TIMEOUT") == timeout, f"{name}: TIMEOUT {p.get('TIMEOUT')}, expected {timeout}")
        env = p.get("ENVIRONMENT", [])
        expect(f"MCP_LOADTEST_RUN_ROOT={root}" in env, f"{name}: no MCP_LOADTEST_RUN_ROOT in {env}")
        expect(f"MCP_LOADTEST_BASELINE_DIR={project}" in env, f"{name}: no MCP_LOADTEST_BASELINE_DIR in {env}")
        if name.startswith("d:"):
            expect("PYTHONDONTWRITEBYTECODE=1" in env, f"{name}: the ENVIRONMENT argument is missing: {env}")
        attached = p.get("ATTACHED_FILES")
        if slug:
            latest = os.path.join(root, slug, "latest")
            want = [os.path.join(latest, f) for f in ("report.json", "report.md", "report.html", "latency.hlog")]
            expect(attached == want, f"{name}: ATTACHED_FILES {attached}, expected {want}")
        else:
            expect(attached is None, f"{name}: a plain test has ATTACHED_FILES {attached}")

    # The load case for real: its run directory appears where ATTACHED_FILES point.
    shutil.rmtree(run_root, ignore_errors=True)
    run(["ctest", "--test-dir", build, "-R", "^d:load one$", "--output-on-failure"])
    for f in props.get("d:load one", {}).get("ATTACHED_FILES", []):
        expect(os.path.isfile(f) and os.path.getsize(f) > 0, f"the attached file {f} was not written")

    if errors:
        sys.exit("FAILED:\n  " + "\n  ".join(errors))
    print(f"ok: {len(props)} tests checked ({', '.join(sorted({n.split(':')[0] for n in props}))}: d doctest, "
          "c Catch2, g GoogleTest; Catch2 and GoogleTest only when installed)")


if __name__ == "__main__":
    main()
