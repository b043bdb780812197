// The Unix backend (Linux, macOS; both Linux backends) of detail/os/utc_time.hpp.
#pragma once

#include <mcp_loadtest/detail/os/utc_time.hpp>

#if MCP_LOADTEST_OS_UNIX

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::tm utc_calendar(std::time_t t) noexcept {
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    return tm;
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_UNIX
