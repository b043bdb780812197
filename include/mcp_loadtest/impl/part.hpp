// The start of one part of the separately compiled library (src/parts/*.cpp,
// compiled in parallel by the mcp_loadtest::separate CMake target): the
// headers stay declarations only, and the part includes its own share of the
// definitions, the impl/*.ipp files, by name. impl/src.hpp is all of them in
// one file.
#pragma once

#if !defined(MCP_LOADTEST_SEPARATE_COMPILATION)
#error "mcp_loadtest/impl/part.hpp is for separate compilation: define MCP_LOADTEST_SEPARATE_COMPILATION in every translation unit (the mcp_loadtest::separate CMake target does)"
#endif
#if defined(MCP_LOADTEST_COMPILING_LIBRARY)
#error "a part of the library and impl/src.hpp (the whole library) cannot share a translation unit"
#endif

#if defined(__GNUC__) && !defined(__clang__)
// As in impl/src.hpp: coroutines defined in .ipp files keep lambdas in their frames.
#pragma GCC diagnostic ignored "-Wsubobject-linkage"
#endif

#include <mcp_loadtest/detail/config.hpp>
