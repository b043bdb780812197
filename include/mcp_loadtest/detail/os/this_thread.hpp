// What the library asks of the calling thread's scheduling.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/platform.hpp>

namespace mcp_loadtest::detail {

/// The calling thread yields to every normal one (the trace's formatter: it must
/// never take a core from the run it records). Failure leaves the normal priority,
/// which is only slower for the run.
MCP_LOADTEST_DECL void lower_this_thread_priority() noexcept;

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/linux/impl/this_thread.ipp>
#include <mcp_loadtest/detail/os/macos/impl/this_thread.ipp>
#include <mcp_loadtest/detail/os/windows/impl/this_thread.ipp>
#endif
