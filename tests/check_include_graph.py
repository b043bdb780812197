#!/usr/bin/env python3
"""A stdio-only test file compiles no network code.

Compiles one MCP_LOADTEST_CASE that spawns a stdio server (doctest and
<mcp_loadtest/doctest.hpp> only, no precompiled header) with `-H
-fsyntax-only`, and fails if any header of the network transports (HTTP, SSE,
WebSocket, SHA-1, URLs, TCP/Unix connect, TLS) was opened. Those come with
<mcp_loadtest/http.hpp>, websocket.hpp, socket.hpp and network.hpp only; a
header that pulls one back into the session layer makes every stdio test pay
for it again (docs/compile-time.md).

    check_include_graph.py --cxx g++ -- -std=gnu++20 -Iinclude -DASIO_STANDALONE ...
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

PROBE = r"""
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>

namespace mlt = mcp_loadtest;

MCP_LOADTEST_CASE("a stdio server answers") {
    mlt::stdio_server server{"python3", {"server.py"}};
    auto s = co_await mlt::connect(server);
    auto tools = co_await s.list_tools();
    CHECK(tools.ok());
    MCP_CHECK_OK(co_await s.call_tool("echo", mlt::args("message", "hi")));
    co_await s.close();
}
"""

# Library headers of the network transports (by the words of their names:
# detail/wire/http1.hpp, http_pool.hpp, legacy_sse_transport.hpp, net_connect.hpp,
# ...), the public headers that bring them, and what they bring (TLS, TCP).
NETWORK_WORDS = {"http", "http1", "sse", "websocket", "sha1", "url", "net", "socket", "tls"}
NETWORK_HEADERS = {"byte_stream", "network"}
FOREIGN = re.compile(r"/asio/ssl(\.hpp$|/)|/openssl/|/asio/ip/tcp\.hpp$")


def is_network(path: str) -> bool:
    if FOREIGN.search(path):
        return True
    if "/mcp_loadtest/" not in path or not path.endswith(".hpp"):
        return False
    stem = os.path.basename(path)[: -len(".hpp")]
    return stem in NETWORK_HEADERS or any(word in NETWORK_WORDS for word in stem.split("_"))


# Proof that the probe really compiled the session layer (not an empty graph).
REQUIRED = ("/mcp_loadtest/session.hpp", "/mcp_loadtest/detail/transport/stdio_transport.hpp")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cxx", required=True, help="the C++ compiler (GCC or Clang: -H)")
    parser.add_argument("flags", nargs="*", help="compiler flags (after --)")
    args = parser.parse_args()
    # Empty -I/-D left by CMake generator expressions over empty lists; the
    # system directory as -I would break libstdc++'s #include_next.
    flags = [f for f in args.flags if f not in ("-I", "-D", "", "-I/usr/include")]

    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "stdio_only_case.cpp")
        with open(source, "w") as f:
            f.write(PROBE)
        cmd = [args.cxx, *flags, "-H", "-fsyntax-only", source]
        run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        print("the stdio-only probe did not compile:\n  " + " ".join(cmd) + "\n" + run.stderr, file=sys.stderr)
        return 1

    # -H prints one line per opened header: dots (depth), a space, the path.
    opened = []
    for line in run.stderr.splitlines():
        m = re.match(r"^(\.+) (.+)$", line)
        if m:
            opened.append((len(m.group(1)), os.path.normpath(m.group(2))))
    paths = [p for _, p in opened]
    library = sorted({p for p in paths if "/mcp_loadtest/" in p})
    print(f"stdio-only case: {len(set(paths))} headers opened, {len(library)} of them mcp_loadtest's")

    missing = [r for r in REQUIRED if not any(p.endswith(r) for p in paths)]
    if missing:
        print("the probe did not include " + ", ".join(missing) + ": the check saw the wrong graph", file=sys.stderr)
        return 1

    bad = []
    for i, (depth, path) in enumerate(opened):
        if is_network(path):
            # Who included it: the nearest earlier header one level up. Only
            # the way in is shown, not what a forbidden header opens in turn.
            parent = next((p for d, p in reversed(opened[:i]) if d == depth - 1), "the probe")
            if not is_network(parent):
                bad.append(f"  {path}\n      included by {parent}")
    if bad:
        print("a stdio-only test compiles network code; these headers were opened:\n" + "\n".join(bad) +
              "\nKeep network transports behind <mcp_loadtest/http.hpp>, websocket.hpp, socket.hpp "
              "(detail/transport/transport_registry.hpp).", file=sys.stderr)
        return 1
    print("no network header: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
