// The library's definitions, compiled once: include this from exactly one
// source file of a program built with MCP_LOADTEST_SEPARATE_COMPILATION
// (src/mcp_loadtest.cpp is that file for the mcp_loadtest::separate target).
// Every header brings its impl/*.ipp here, every transport included.
#pragma once

#if !defined(MCP_LOADTEST_SEPARATE_COMPILATION)
#error "mcp_loadtest/impl/src.hpp is for separate compilation: define MCP_LOADTEST_SEPARATE_COMPILATION in every translation unit (the mcp_loadtest::separate CMake target does), or drop this file and use the headers alone"
#endif
#define MCP_LOADTEST_COMPILING_LIBRARY 1

#if defined(__GNUC__) && !defined(__clang__)
// GCC warns when a coroutine defined in a header (here: an .ipp) keeps a
// lambda in its frame; the definitions are compiled in this one file only.
#pragma GCC diagnostic ignored "-Wsubobject-linkage"
#endif

#include <mcp_loadtest/mcp_loadtest.hpp>
// What the umbrella leaves out: the test-framework-independent case runner
// (doctest.hpp, catch2.hpp and gtest.hpp use it), call_every_tool(), the
// protocol fuzzer, and strict validation where valijson is installed.
#include <mcp_loadtest/call_every_tool.hpp>
#include <mcp_loadtest/detail/testing/case_runner.hpp>
// The Windows spawner and its command-line text, reached from the OS layer only on
// Windows: their definitions compile to nothing elsewhere, or to text functions.
#include <mcp_loadtest/detail/os/windows/spawn.hpp>
#include <mcp_loadtest/detail/os/windows_command_line.hpp>
#include <mcp_loadtest/fuzz.hpp>
#if __has_include(<valijson/validator.hpp>)
#include <mcp_loadtest/strict.hpp>
#endif
