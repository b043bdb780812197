// The Windows backend of detail/os/this_thread.hpp.
#pragma once

#include <mcp_loadtest/detail/os/this_thread.hpp>

#if MCP_LOADTEST_OS_WINDOWS

#include <mcp_loadtest/detail/os/windows/handles.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void lower_this_thread_priority() noexcept {
    (void)::SetThreadPriority(::GetCurrentThread(), THREAD_PRIORITY_LOWEST);
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_WINDOWS
