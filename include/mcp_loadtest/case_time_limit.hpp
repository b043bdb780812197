// How long one MCP_LOADTEST_CASE may run before it is stopped and failed.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <chrono>
#include <cstdlib>

namespace mcp_loadtest {

/// The default whole-case time limit: $MCP_LOADTEST_CASE_TIME_LIMIT (seconds)
/// when set, else 120 s. Per case: MCP_LOADTEST_CASE_LIMIT(limit, "name").
MCP_LOADTEST_DECL std::chrono::milliseconds default_case_time_limit();

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/case_time_limit.ipp>
#endif
