#!/usr/bin/env python3
"""Writes every ```cpp block of README.md and docs/*.md to a .cpp file, so the
build compiles the documentation's code as it compiles the tests.

A block with its own #include lines is a whole file and is written as it is.
Any other block is a fragment: it is written after a prelude (the library's
headers, doctest, `namespace mlt`, the chrono literals). A fragment that
starts with a declaration the reader would write at namespace scope
(MCP_LOADTEST_CASE, a function, a struct) stays at namespace scope; any other
fragment is the body of a coroutine, where `co_await` works and `session`
names an open session.

usage: extract_doc_snippets.py <source dir> <output dir>
Prints the written files, one per line (CMake reads them). Unchanged files are
not rewritten, so editing one page recompiles only its blocks.
"""
import pathlib
import re
import sys

PRELUDE = """\
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/mcp_loadtest.hpp>
namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;
"""

NAMESPACE_SCOPE = re.compile(r"^\s*(MCP_LOADTEST_CASE|TEST_CASE|struct |class |namespace |template|"
                             r"(static |inline )?[\w:<>]+ \w+\([^;]*\)\s*(->.*)?\{)")


def snippets(path):
    text = path.read_text(encoding="utf-8")
    for m in re.finditer(r"^```(?:cpp|c\+\+)\n(.*?)^```", text, re.S | re.M):
        yield text.count("\n", 0, m.start()) + 1, m.group(1)


def as_translation_unit(code, origin):
    header = f"// Extracted from {origin}: keep the page and this code in step.\n"
    if re.search(r"^\s*#\s*include", code, re.M):
        return header + code
    first = next((l for l in code.splitlines() if l.strip() and not l.strip().startswith("//")), "")
    if NAMESPACE_SCOPE.match(first):
        return header + PRELUDE + code
    body = "".join("    " + l + "\n" if l.strip() else "\n" for l in code.splitlines())
    return header + PRELUDE + "\n[[maybe_unused]] static asio::awaitable<void> snippet([[maybe_unused]] mlt::session& session) {\n" + body + "}\n"


def main():
    source, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    pages = [source / "README.md"] + sorted((source / "docs").glob("*.md"))
    written = set()
    for page in pages:
        rel = page.relative_to(source).as_posix()
        for line, code in snippets(page):
            name = out / (re.sub(r"[^\w]", "_", rel[:-3]) + f"_line{line}.cpp")
            unit = as_translation_unit(code, f"{rel}, line {line}")
            if not name.exists() or name.read_text(encoding="utf-8") != unit:
                name.write_text(unit, encoding="utf-8")
            written.add(name)
            print(name.as_posix())
    for stale in out.glob("*.cpp"):
        if stale not in written:
            stale.unlink()


if __name__ == "__main__":
    main()
