// Definitions of detail/os/thread_readings.hpp that every system shares (header-only:
// included by it; separate compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/os/thread_readings.hpp>

#include <cstdlib>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void parse_syscall_line(const std::string& text, thread_reading& t) {
    if (text.rfind("running", 0) == 0) {
        t.syscall = -2;
        return;
    }
    const char* p = text.c_str();
    char* end = nullptr;
    const long number = std::strtol(p, &end, 10);
    if (end == p) return;
    t.syscall = number < 0 ? -1 : number;
    for (auto& a : t.args) {
        p = end;
        const unsigned long long v = std::strtoull(p, &end, 16);  // "0x.." parses as hex
        if (end == p) break;
        a = v;
    }
}

}  // namespace mcp_loadtest::detail
