#!/usr/bin/env python3
"""Runs an expected-failures test binary under its framework's JUnit reporter
and checks that every failure inside an MCP_LOADTEST_CASE coroutine is
reported, counted, and attributed to the line marked `EXPECT-FAIL` in the
source, that passing cases stay passing, and that nothing leaked.

usage: check_junit.py doctest|catch2|gtest <binary> <source>...

GoogleTest (its --gtest_output=xml) names a test with identifiers: there a case
is MCP_LOADTEST_TEST(Suite, Name), and a shared MCP_LOADTEST_CASE("...") is
named line<N>, N its line (the mapping in expected_failures_gtest.cpp). It
reports each failure on its own, so there a failing case must report exactly
one per EXPECT-FAIL line: none counted twice, none after a fatal one.
"""
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

framework, binary, sources = sys.argv[1], sys.argv[2], sys.argv[3:]

# EXPECT-FAIL line -> the case it belongs to (the nearest case name above it).
expected = {}
case_names = []
for source in sources:
    case = None
    for number, text in enumerate(open(source).read().splitlines(), 1):
        m = re.search(r'MCP_LOADTEST_CASE(?:_LIMIT)?\((?:[^,]+,\s*)?"([^"]+)"', text)
        g = re.search(r'MCP_LOADTEST_TEST(?:_LIMIT)?\((?:[^,]+,)?\s*\w+,\s*(\w+)\)', text)
        if m or g:
            case = g.group(1) if g else f"line{number}" if framework == "gtest" else m.group(1)
            case_names.append(case)
        if "EXPECT-FAIL" in text and "//" in text and case and not text.lstrip().startswith("//"):
            expected.setdefault(case, []).append(number)

with tempfile.NamedTemporaryFile(suffix=".xml") as out:
    if framework == "doctest":
        cmd = [binary, "--reporters=junit", f"--out={out.name}", "--no-intro=true"]
    elif framework == "gtest":
        cmd = [binary, f"--gtest_output=xml:{out.name}"]
    else:
        cmd = [binary, "-r", "junit", "-o", out.name]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    report = open(out.name).read()

problems = []
if run.returncode == 0:
    problems.append("the binary exited 0 although its cases must fail")
if run.returncode == 100 or "LEAK:" in run.stderr:
    problems.append("leaks after failing cases:\n" + run.stderr)

root = ET.fromstring(report)
cases = {tc.get("name"): tc for tc in root.iter("testcase")}
for name in case_names:
    tc = cases.get(name)
    if tc is None:
        problems.append(f"case {name!r} is missing from the JUnit report")
        continue
    failures = list(tc.iter("failure")) + list(tc.iter("error"))
    text = "\n".join((f.get("message") or "") + "\n" + (f.text or "") for f in failures)
    if name not in expected:
        if failures:
            problems.append(f"case {name!r} should pass but reported: {text}")
        continue
    if not failures:
        problems.append(f"case {name!r} should have failed but the JUnit report has no failure")
    elif framework == "gtest" and len(failures) != len(expected[name]):
        problems.append(f"case {name!r}: {len(failures)} failure(s) reported, expected {len(expected[name])}:\n{text}")
    for line in expected[name]:
        if not re.search(rf"[:(]{line}\b", text) and not (
                # an unexpected exception is attributed to the test case itself
                # (GoogleTest gives every test case its line: not a proof there)
                framework != "gtest" and re.search(rf'line="?{line}\b', ET.tostring(tc, encoding="unicode"))):
            problems.append(f"case {name!r}: no failure attributed to line {line}; got:\n{text}")

totals = [int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in root.iter("testsuite")]
if sum(totals) < len(expected):
    problems.append(f"the JUnit totals count {sum(totals)} failures, expected at least {len(expected)}")

for p in problems:
    print("PROBLEM:", p)
print(f"{framework}: {len(expected)} expected failures checked, {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
