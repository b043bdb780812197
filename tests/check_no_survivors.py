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
    args = [a.decode(errors="replace") for a in argv if a]
    if not args or int(pid) == os.getpid():
        continue
    # A server is an interpreter running a script from one of the directories, or a
    # program of one of them (the C++ fixture server, and the child it starts).
    interpreter = os.path.basename(args[0]).startswith(("python", "node"))
    try:
        program = os.path.realpath(os.readlink(f"/proc/{pid}/exe"))
    except OSError:  # gone, or not ours to read
        program = ""
    if (interpreter and any(a.startswith(d + os.sep) for a in args[1:] for d in dirs)) or \
            any(program.startswith(d + os.sep) for d in dirs):
        survivors.append(f"pid {pid}: {' '.join(args)}")
for s in survivors:
    print("SURVIVOR:", s)
print(f"{len(survivors)} server process(es) outlived the suite")
sys.exit(1 if survivors else 0)
