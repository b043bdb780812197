#!/usr/bin/env python3
"""The separately compiled library's parts hold every definition exactly once.

CMake compiles mcp_loadtest::separate from src/parts/*.cpp, in parallel; each
part includes a list of impl/*.ipp files. Every .ipp under include/ must be in
exactly one part: in none, its functions are undefined at link time; in two,
defined twice. meson.build must name the same parts. With --cxx, also checks that src/mcp_loadtest.cpp (the whole
library in one file, for Meson and hand-made builds) reaches every .ipp too,
by listing what it includes (-M).

    check_library_parts.py ROOT [--cxx g++ -- -std=gnu++20 -Iinclude -D...]
"""
import argparse
import glob
import os
import re
import subprocess
import sys


def main():
    argv, flags = sys.argv[1:], []
    if "--" in argv:  # the compiler's flags follow "--"
        flags = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--cxx")
    args = ap.parse_args(argv)
    include = os.path.join(args.root, "include")
    every = sorted(os.path.relpath(p, include) for p in glob.glob(os.path.join(include, "**", "*.ipp"), recursive=True))
    parts = sorted(glob.glob(os.path.join(args.root, "src", "parts", "*.cpp")))
    if not parts:
        print("no src/parts/*.cpp found under", args.root)
        return 1
    where = {}
    needs = {}  # .ipp -> the header its part's #if __has_include(<...>) asks for
    for part in parts:
        condition = None
        with open(part, encoding="utf-8") as f:
            for line in f:
                if m := re.match(r"\s*#\s*if\s+__has_include\(<([^>]+)>\)", line):
                    condition = m.group(1)
                elif re.match(r"\s*#\s*endif", line):
                    condition = None
                elif m := re.match(r"\s*#\s*include\s*<([^>]+\.ipp)>", line):
                    where.setdefault(m.group(1), []).append(os.path.basename(part))
                    if condition:
                        needs[m.group(1)] = condition
    problems = []
    for name in every:
        found = where.get(name, [])
        if not found:
            problems.append(f"{name} is in no part: add it to one of src/parts/*.cpp")
        elif len(found) > 1:
            problems.append(f"{name} is in {len(found)} parts ({', '.join(found)}): keep it in one")
    for name in where:
        if name not in every:
            problems.append(f"{where[name][0]} includes {name}, which does not exist")
    # Meson's separate library names its sources itself: the same parts.
    with open(os.path.join(args.root, "meson.build"), encoding="utf-8") as f:
        meson_parts = sorted(set(re.findall(r"'src/parts/([^']+\.cpp)'", f.read())))
    if meson_parts != sorted(os.path.basename(p) for p in parts):
        problems.append(f"meson.build compiles the parts {meson_parts}, src/parts/ holds "
                        f"{sorted(os.path.basename(p) for p in parts)}: list the same in its static_library()")
    if args.cxx:
        out = subprocess.run([args.cxx, *flags, "-DMCP_LOADTEST_SEPARATE_COMPILATION", "-M",
                              os.path.join(args.root, "src", "mcp_loadtest.cpp")],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print(out.stderr)
            problems.append("src/mcp_loadtest.cpp does not preprocess (the compiler's message is above)")
        else:
            deps = out.stdout.replace("\\\n", " ").split()
            reached = {os.path.relpath(os.path.realpath(p), os.path.realpath(include))
                       for p in deps if p.endswith(".ipp")}
            for name in every:
                # A part's optional definitions (strict validation without valijson) are
                # reached only where what they need is installed.
                if name in needs and not any(p.endswith("/" + needs[name]) for p in deps):
                    continue
                if name not in reached:
                    problems.append(f"src/mcp_loadtest.cpp does not reach {name}: include its header from "
                                    "include/mcp_loadtest/impl/src.hpp")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"ok: {len(every)} definition files, each in one of {len(parts)} parts"
              + (", and all reached by src/mcp_loadtest.cpp" if args.cxx else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
