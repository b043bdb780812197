#!/usr/bin/env python3
"""Fails when a test case's name holds a ';'. CTest's test discovery
(doctest_discover_tests, catch_discover_tests) keeps names in CMake lists,
where ';' separates items: such a case is registered as two names that match
no test, and CTest then reports them passed without running anything.

usage: check_test_names.py <tests dir>
"""
import pathlib
import re
import sys

CASE = re.compile(r'\b(?:MCP_LOADTEST_CASE(?:_LIMIT)?|TEST_CASE|SCENARIO)\s*\((?:[^,"\n]+,\s*)?"((?:[^"\\]|\\.)*)"')
bad = []
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*")):
    if path.suffix not in (".cpp", ".hpp") or "node_modules" in path.parts:
        continue
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        for m in CASE.finditer(line):
            if ";" in m.group(1):
                bad.append(f"{path}:{number}: \"{m.group(1)}\"")
if bad:
    print("test names with ';' (CTest would split them and run nothing; use ',' instead):")
    print("\n".join(bad))
    sys.exit(1)
print("no test name holds a ';'")
