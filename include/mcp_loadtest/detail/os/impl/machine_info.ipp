// Definitions of detail/os/machine_info.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/os/machine_info.hpp>

#include <fstream>
#include <thread>
#include <sys/utsname.h>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line, fallback;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string key = line.substr(0, colon);
        while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
        std::string value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        if (key == "model name" && !value.empty()) return value;
        if ((key == "Hardware" || key == "cpu model" || key == "Processor") && fallback.empty()) fallback = value;
    }
    return fallback.empty() ? "unknown" : fallback;
}

MCP_LOADTEST_DECL unsigned cpu_cores() { return std::thread::hardware_concurrency(); }

MCP_LOADTEST_DECL std::string compiler_id() {
#if defined(__clang__)
    return "Clang " __clang_version__;
#elif defined(__GNUC__)
    return "GCC " __VERSION__;
#elif defined(_MSC_VER)
    return "MSVC " + std::to_string(_MSC_VER);
#else
    return "unknown compiler";
#endif
}

MCP_LOADTEST_DECL std::string kernel_id() {
    utsname u{};
    if (::uname(&u) != 0) return "unknown";
    return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

}  // namespace mcp_loadtest::detail
