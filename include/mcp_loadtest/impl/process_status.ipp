// Definitions of process_status.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/process_status.hpp>

#include <mcp_loadtest/detail/os/process_info.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::string exit_status::describe() const {
    if (!exited) return "still running";
    if (signal != 0) {
        const std::string name = detail::signal_name(signal);
        return "killed by signal " + std::to_string(signal) + (name.empty() ? "" : " (" + name + ")");
    }
    return "exited with code " + std::to_string(code);
}

}  // namespace mcp_loadtest
