// The macOS backend of detail/os/machine_info.hpp: sysctl's
// machdep.cpu.brand_string and uname(). Not compiled or run in CI (no macOS
// machine).
#pragma once

#include <mcp_loadtest/detail/os/machine_info.hpp>

#if MCP_LOADTEST_OS_MACOS

#include <sys/sysctl.h>
#include <sys/utsname.h>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string cpu_model() {
    char name[256] = {};
    std::size_t size = sizeof name;
    if (::sysctlbyname("machdep.cpu.brand_string", name, &size, nullptr, 0) != 0 || name[0] == '\0') return "unknown";
    return name;
}

MCP_LOADTEST_DECL std::string kernel_id() {
    utsname u{};
    if (::uname(&u) != 0) return "unknown";
    return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_MACOS
