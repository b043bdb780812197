#pragma once

#define MCP_LOADTEST_VERSION_MAJOR 0
#define MCP_LOADTEST_VERSION_MINOR 1
#define MCP_LOADTEST_VERSION_PATCH 0
#define MCP_LOADTEST_VERSION_STRING "0.1.0"

namespace mcp_loadtest {
inline constexpr const char* version_string = MCP_LOADTEST_VERSION_STRING;
}
