// Every transport writes to a peer that may be gone: a write must then fail
// with EPIPE, not kill the test process.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/platform.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void ignore_sigpipe_once();

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/posix/impl/sigpipe.ipp>
#include <mcp_loadtest/detail/os/windows/impl/sigpipe.ipp>
#endif
