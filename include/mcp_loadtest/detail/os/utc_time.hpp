// A moment as the calendar in UTC, for the timestamps written in reports and
// file names (the thread-safe gmtime is spelled differently on each system).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/platform.hpp>

#include <ctime>

namespace mcp_loadtest::detail {

[[nodiscard]] MCP_LOADTEST_DECL std::tm utc_calendar(std::time_t t) noexcept;

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/posix/impl/utc_time.ipp>
#include <mcp_loadtest/detail/os/windows/impl/utc_time.ipp>
#endif
