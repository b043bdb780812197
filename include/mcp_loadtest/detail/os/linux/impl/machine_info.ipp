// The Linux backend of detail/os/machine_info.hpp: /proc/cpuinfo and uname().
#pragma once

#include <mcp_loadtest/detail/os/machine_info.hpp>

#if MCP_LOADTEST_OS_LINUX

#include <fstream>
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

MCP_LOADTEST_DECL std::string kernel_id() {
    utsname u{};
    if (::uname(&u) != 0) return "unknown";
    return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_LINUX
