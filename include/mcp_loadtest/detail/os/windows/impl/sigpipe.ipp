// The Windows backend of detail/os/sigpipe.hpp: Windows has no SIGPIPE (a
// write to a closed pipe fails with ERROR_NO_DATA), so there is nothing to do.
#pragma once

#include <mcp_loadtest/detail/os/sigpipe.hpp>

#if MCP_LOADTEST_OS_WINDOWS

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void ignore_sigpipe_once() {}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_WINDOWS
