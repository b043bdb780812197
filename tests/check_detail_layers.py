#!/usr/bin/env python3
"""detail/ stays layered by subsystem, and the operating system stays in detail/os/.

Reads the #include lines of every header and definition file under
include/mcp_loadtest/detail/ and fails when a subsystem folder includes one it
may not (the table in docs/index.md, "Inside detail/"), when the Asio-free
codecs (wire/, text/) include Asio, or when a file outside detail/os/ touches
the operating system (OS headers, /proc, pidfds, POSIX calls) without being on
the list of files still to move behind it. That list only shrinks: a file that
no longer touches the OS must leave it (the check says so).

    check_detail_layers.py ROOT
"""
import glob
import os
import re
import sys

# What each detail/ folder may include of the others ("" is detail/ itself,
# always allowed). Public headers (the structs the internals fill) are allowed.
MAY_INCLUDE = {
    "wire": set(),
    "text": {"wire"},
    "os": {"text"},
    "transport": {"wire", "text", "os", "session"},  # session: only the id table (below)
    "session": {"wire", "text", "transport", "os"},  # os: the recording's block filler yields its core
    "engine": {"wire", "text", "session", "os"},  # os: this process's CPU time, whether stderr is a terminal
    "report": {"text"},
    "detectors": set(),
    "testing": {"text"},
    "auth": {"wire", "text", "transport"},  # transport: one-off HTTP requests over its connections and TLS
}
# Narrower than a whole folder: transport/ uses one container of session/.
ONLY = {("transport", "session"): {"detail/session/id_table.hpp"}}
ASIO_FREE = {"wire", "text"}

OS_TOUCH = re.compile(
    r"#\s*include\s*<(unistd|dirent|fcntl|spawn|poll|pthread|signal|netdb|windows|winsock2|ws2tcpip|io)\.h>"
    r"|#\s*include\s*<(sys|netinet|arpa)/"
    r'|"/proc|pidfd'
    r"|::(getpid|kill|killpg|waitpid|fork|setsid|sysconf|isatty|fcntl|poll|pipe2?|dup2?|opendir|readlink|getrusage|posix_spawnp?|sigabbrev_np|strsignal|gmtime_r|localtime_r)\("
    r"|asio::posix::")
# Files outside detail/os/ allowed to touch the OS for now (paths relative to
# include/mcp_loadtest/). Empty: keep it so. A file listed here while it no longer
# touches the OS is an error too, so the list cannot go stale.
NOT_YET_BEHIND_THE_SEAM: set = set()
INCLUDE = re.compile(r"#\s*include\s*<mcp_loadtest/([\w/]+\.hpp)>")


def folder(rel):
    """The detail/ subsystem of a path relative to include/mcp_loadtest/, "" for detail/ itself, None outside."""
    parts = rel.split("/")
    if parts[0] != "detail":
        return None
    return parts[1] if len(parts) > 2 and parts[1] != "impl" else ""


def main():
    root = os.path.join(sys.argv[1], "include", "mcp_loadtest")
    problems = []
    touching = set()
    for path in sorted(glob.glob(os.path.join(root, "**", "*.[hi]pp"), recursive=True)):
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        text = open(path, encoding="utf-8").read()
        if OS_TOUCH.search(text) and not rel.startswith("detail/os/"):
            touching.add(rel)
            if rel not in NOT_YET_BEHIND_THE_SEAM:
                line = text[: OS_TOUCH.search(text).start()].count("\n") + 1
                problems.append(f"{rel}:{line}: touches the operating system outside detail/os/; "
                                "put that code behind detail/os/ and call it from here")
        mine = folder(rel)
        if mine is None or mine == "":
            continue
        if mine not in MAY_INCLUDE:
            problems.append(f"{rel}: detail/{mine}/ is a folder this check does not know; add it to MAY_INCLUDE "
                            "and to the table in docs/index.md")
            continue
        if mine in ASIO_FREE and re.search(r"#\s*include\s*<asio", text):
            problems.append(f"{rel}: detail/{mine}/ is Asio-free (its codecs are tested without an event loop)")
        for m in INCLUDE.finditer(text):
            theirs = folder(m.group(1))
            if theirs in (None, "", mine):
                continue
            allowed = theirs in MAY_INCLUDE[mine]
            if allowed and (mine, theirs) in ONLY:
                allowed = m.group(1) in ONLY[(mine, theirs)]
            if not allowed:
                problems.append(f"{rel}: detail/{mine}/ may not include {m.group(1)} "
                                f"(detail/{mine}/ builds on: {', '.join(sorted(MAY_INCLUDE[mine])) or 'nothing of detail/'})")
    for rel in sorted(NOT_YET_BEHIND_THE_SEAM - touching):
        problems.append(f"{rel}: no longer touches the operating system; remove it from NOT_YET_BEHIND_THE_SEAM")
    for p in problems:
        print(p)
    print(f"{len(touching)} file(s) outside detail/os/ still touch the operating system")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
