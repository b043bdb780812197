// The one source file of mcp-loadtest's separate-compilation mode: the
// definitions every header declares, compiled once into the
// mcp_loadtest::separate library (docs/compile-time.md).
#include <mcp_loadtest/impl/src.hpp>
