#!/usr/bin/env python3
"""Writes every ```cpp block of README.md and docs/*.md to .cpp files, so the
build compiles the documentation's code as it compiles the tests.

A block with its own #include lines is a whole file and is written as it is,
one file per block. The other blocks are fragments, and a page's fragments
share one file (one translation unit per page: the library's coroutines are
instantiated once per page, not once per block): a prelude (the library's
headers, doctest, `namespace mlt`, the chrono literals), then each fragment
in its own namespace, under a #line directive so that a compiler error names
the page and line. A fragment that starts with a declaration the reader would
write at namespace scope (MCP_LOADTEST_CASE, a function, a struct) stays at
that scope; any other fragment is the body of a coroutine, where `co_await`
works and `session` names an open session. A whole file that uses GoogleTest
(optional, unlike doctest) compiles only where <gtest/gtest.h> is found.

usage: extract_doc_snippets.py <source dir> <output dir>
Prints the written files, one per line (CMake reads them). Unchanged files are
not rewritten, so editing one page recompiles only that page.
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


def is_whole_file(code):
    return re.search(r"^\s*#\s*include", code, re.M) is not None


def as_fragment(code, rel, line):
    """One fragment of a page's shared file, in its own namespace."""
    first = next((l for l in code.splitlines() if l.strip() and not l.strip().startswith("//")), "")
    opening = f"namespace snippet_line{line} {{\n"
    if NAMESPACE_SCOPE.match(first):
        return f"{opening}#line {line + 1} \"{rel}\"\n{code}}}\n"
    return (f"{opening}[[maybe_unused]] static asio::awaitable<void> snippet([[maybe_unused]] mlt::session& session) {{\n"
            f"#line {line + 1} \"{rel}\"\n{code}}}\n}}\n")


def write_if_changed(name, unit, written):
    if not name.exists() or name.read_text(encoding="utf-8") != unit:
        name.write_text(unit, encoding="utf-8")
    written.add(name)
    print(name.as_posix())


def main():
    source, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    pages = [source / "README.md"] + sorted((source / "docs").glob("*.md"))
    written = set()
    for page in pages:
        rel = page.relative_to(source).as_posix()
        stem = re.sub(r"[^\w]", "_", rel[:-3])
        fragments = []
        for line, code in snippets(page):
            if is_whole_file(code):
                header = f"// Extracted from {rel}, line {line}: keep the page and this code in step.\n"
                unit = f"#line {line + 1} \"{rel}\"\n" + code
                if "<gtest/gtest.h>" in code:
                    unit = f"#if __has_include(<gtest/gtest.h>)\n{unit}#endif\n"
                write_if_changed(out / f"{stem}_line{line}.cpp", header + unit, written)
            else:
                fragments.append(as_fragment(code, rel, line))
        if fragments:
            header = f"// The code fragments of {rel}: keep the page and this code in step.\n"
            write_if_changed(out / f"{stem}.cpp", header + PRELUDE + "\n" + "\n".join(fragments), written)
    for stale in out.glob("*.cpp"):
        if stale not in written:
            stale.unlink()


if __name__ == "__main__":
    main()
