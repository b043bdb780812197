// Definitions of detail/os/machine_info.hpp that every system shares (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/os/machine_info.hpp>

#include <thread>

namespace mcp_loadtest::detail {

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

}  // namespace mcp_loadtest::detail
