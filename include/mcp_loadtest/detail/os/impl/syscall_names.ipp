// Definitions of detail/os/syscall_names.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/os/syscall_names.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string syscall_name(long number) {
    for (const auto& e : known_syscalls)
        if (e.number == number) return e.name;
    return "syscall " + std::to_string(number);
}

}  // namespace mcp_loadtest::detail
