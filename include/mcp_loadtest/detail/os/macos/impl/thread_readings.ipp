// The macOS backend of detail/os/thread_readings.hpp: a process's threads from
// libproc (PROC_PIDLISTTHREADS gives their ids). Their states are not read: each
// shows as state_not_shown, as on Windows. Not compiled or run in CI (no macOS
// machine).
#pragma once

#include <mcp_loadtest/detail/os/thread_readings.hpp>

#if MCP_LOADTEST_OS_MACOS

#include <libproc.h>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL bool read_task_file(pid_t, pid_t, const char*, std::string&) { return false; }

MCP_LOADTEST_DECL std::vector<pid_t> thread_ids(pid_t pid) {
    std::vector<std::uint64_t> ids(256);
    const int bytes = ::proc_pidinfo(pid, PROC_PIDLISTTHREADS, 0, ids.data(), static_cast<int>(ids.size() * sizeof ids[0]));
    std::vector<pid_t> out;
    for (int i = 0; bytes > 0 && i < bytes / static_cast<int>(sizeof ids[0]); ++i)
        out.push_back(static_cast<pid_t>(ids[static_cast<std::size_t>(i)]));
    return out;
}

MCP_LOADTEST_DECL thread_reading read_thread(pid_t, pid_t tid) {
    thread_reading t;
    t.tid = tid;
    t.state = state_not_shown;
    return t;
}

MCP_LOADTEST_DECL std::string fd_target(pid_t, std::uint64_t) { return {}; }

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_MACOS
