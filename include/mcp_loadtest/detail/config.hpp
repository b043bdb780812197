// How the library is compiled: header-only (the default) or separately.
//
// Header-only, every function is `inline` and each header brings its
// definitions (its `impl/*.ipp`). With MCP_LOADTEST_SEPARATE_COMPILATION
// defined in every translation unit (the mcp_loadtest::separate CMake target
// and Meson's `separate_compilation` option do it), headers declare only, and
// the definitions are compiled once, by one source file that includes
// <mcp_loadtest/impl/src.hpp> (src/mcp_loadtest.cpp). Templates stay in the
// headers in both modes. docs/compile-time.md says which mode to choose.
#pragma once

#if defined(MCP_LOADTEST_SEPARATE_COMPILATION)
#define MCP_LOADTEST_DECL
#if defined(MCP_LOADTEST_COMPILING_LIBRARY)
#define MCP_LOADTEST_INCLUDE_IMPL 1
#endif
#else
#define MCP_LOADTEST_DECL inline
#define MCP_LOADTEST_INCLUDE_IMPL 1
#endif

// For the few leaves of the per-call path the compiler would otherwise call out of line.
#if defined(__GNUC__)
#define MCP_LOADTEST_ALWAYS_INLINE [[gnu::always_inline]] inline
#define MCP_LOADTEST_NOINLINE [[gnu::noinline]]
#else
#define MCP_LOADTEST_ALWAYS_INLINE inline
#define MCP_LOADTEST_NOINLINE
#endif
