#!/usr/bin/env python3
"""Fails if any process still runs a program from the given directories.

The suite's CTest cleanup step: after every test, no fixture server (or
third-party server started by the interop tests) may still be alive.
"""
import os
import sys

dirs = [os.path.realpath(d) for d in sys.argv[1:]]
survivors = []
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        continue
    cmd = " ".join(a.decode(errors="replace") for a in argv if a)
    if any(d in cmd for d in dirs) and int(pid) != os.getpid():
        survivors.append(f"pid {pid}: {cmd}")
for s in survivors:
    print("SURVIVOR:", s)
print(f"{len(survivors)} server process(es) outlived the suite")
sys.exit(1 if survivors else 0)
