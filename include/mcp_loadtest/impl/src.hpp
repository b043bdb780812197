// The library's definitions, compiled once: include this from exactly one
// source file of a program built with MCP_LOADTEST_SEPARATE_COMPILATION
// (src/mcp_loadtest.cpp is that file for the mcp_loadtest::separate target).
// Every header brings its impl/*.ipp here, every transport included.
#pragma once

#if !defined(MCP_LOADTEST_SEPARATE_COMPILATION)
#error "mcp_loadtest/impl/src.hpp is for separate compilation: define MCP_LOADTEST_SEPARATE_COMPILATION in every translation unit (the mcp_loadtest::separate CMake target does), or drop this file and use the headers alone"
#endif
#define MCP_LOADTEST_COMPILING_LIBRARY 1

#include <mcp_loadtest/mcp_loadtest.hpp>
