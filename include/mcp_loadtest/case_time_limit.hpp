// How long one MCP_LOADTEST_CASE may run before it is stopped and failed.
#pragma once

#include <chrono>
#include <cstdlib>

namespace mcp_loadtest {

/// The default whole-case time limit: $MCP_LOADTEST_CASE_TIME_LIMIT (seconds)
/// when set, else 120 s. Per case: MCP_LOADTEST_CASE_LIMIT(limit, "name").
inline std::chrono::milliseconds default_case_time_limit() {
    if (const char* env = std::getenv("MCP_LOADTEST_CASE_TIME_LIMIT")) {
        char* end = nullptr;
        const double s = std::strtod(env, &end);
        if (end != env && s > 0) return std::chrono::milliseconds(static_cast<long long>(s * 1000));
    }
    return std::chrono::seconds(120);
}

}  // namespace mcp_loadtest
