// Windows only: the spawn registers each server's Job Object as its group
// (windows/impl/process_groups.ipp keeps them).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/platform.hpp>

#if MCP_LOADTEST_OS_WINDOWS

#include <mcp_loadtest/detail/os/windows/handles.hpp>

namespace mcp_loadtest::detail {

/// Makes `job` the group of the server `group` (its pid); a duplicate is kept.
MCP_LOADTEST_DECL void register_group_job(pid_t group, HANDLE job);

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_WINDOWS
