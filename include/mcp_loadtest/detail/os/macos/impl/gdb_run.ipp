// The macOS backend of detail/os/gdb_backtrace.hpp: no native stacks (gdb does
// not attach on macOS without code signing; lldb is the debugger there). Not
// compiled or run in CI (no macOS machine).
#pragma once

#include <mcp_loadtest/detail/os/gdb_backtrace.hpp>

#if MCP_LOADTEST_OS_MACOS

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL const char* native_stacks_unavailable() noexcept {
    return "native stacks are taken with gdb on Linux only; on macOS, run `lldb -p <pid>` and "
           "`bt all` while it hangs";
}

MCP_LOADTEST_DECL std::string find_on_path(std::string_view) { return {}; }

MCP_LOADTEST_DECL char process_state(pid_t pid) {
    if (const auto id = read_proc_identity(pid)) return id->state;
    return '?';
}

MCP_LOADTEST_DECL bool any_thread_stopped(pid_t) { return false; }

MCP_LOADTEST_DECL gdb_run run_gdb_backtrace(const std::string&, pid_t pid, std::chrono::milliseconds) {
    gdb_run r;
    r.output = native_stacks_unavailable();
    r.state_after = process_state(pid);
    return r;
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_MACOS
