// Definitions of case_time_limit.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/case_time_limit.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::chrono::milliseconds default_case_time_limit() {
    if (const char* env = std::getenv("MCP_LOADTEST_CASE_TIME_LIMIT")) {
        char* end = nullptr;
        const double s = std::strtod(env, &end);
        if (end != env && s > 0) return std::chrono::milliseconds(static_cast<long long>(s * 1000));
    }
    return std::chrono::seconds(120);
}

}  // namespace mcp_loadtest
