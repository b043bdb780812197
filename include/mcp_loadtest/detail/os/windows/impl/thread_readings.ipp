// The Windows backend of detail/os/thread_readings.hpp: a process's thread ids
// from a Tool Help snapshot. Windows shows no thread's wait state, kernel wait
// channel or system call to another process (a debugger would have to attach),
// so each thread reads as state_not_shown and the hang evidence says so.
#pragma once

#include <mcp_loadtest/detail/os/thread_readings.hpp>

#if MCP_LOADTEST_OS_WINDOWS

#include <mcp_loadtest/detail/os/windows/handles.hpp>

#include <tlhelp32.h>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL bool read_task_file(pid_t, pid_t, const char*, std::string&) { return false; }

MCP_LOADTEST_DECL std::vector<pid_t> thread_ids(pid_t pid) {
    std::vector<pid_t> out;
    unique_handle snapshot(::CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0));
    if (!snapshot) return out;
    THREADENTRY32 entry{};
    entry.dwSize = sizeof entry;
    for (BOOL more = ::Thread32First(snapshot.get(), &entry); more; more = ::Thread32Next(snapshot.get(), &entry))
        if (static_cast<pid_t>(entry.th32OwnerProcessID) == pid) out.push_back(static_cast<pid_t>(entry.th32ThreadID));
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

#endif  // MCP_LOADTEST_OS_WINDOWS
