// The Windows backend of detail/os/child_process.hpp, over spawn_windows_child():
// a server's group is its Job Object; its process handle, kept here by pid,
// answers peek_exit() and is what exit_watcher waits on.
#pragma once

#include <mcp_loadtest/detail/os/child_process.hpp>

#if MCP_LOADTEST_OS_WINDOWS

#include <mcp_loadtest/detail/os/windows/groups.hpp>
#include <mcp_loadtest/detail/os/windows/spawn.hpp>

#include <map>
#include <mutex>
#include <thread>

namespace mcp_loadtest::detail {

namespace windows_children {

// The process and job of every server spawned and not yet reaped, by pid.
struct registry {
    std::mutex mutex;
    std::map<pid_t, std::pair<unique_handle, unique_handle>> children;
};

inline registry& children() {
    static registry r;
    return r;
}

inline HANDLE duplicate(HANDLE h) noexcept {
    HANDLE copy = nullptr;
    if (h) ::DuplicateHandle(::GetCurrentProcess(), h, ::GetCurrentProcess(), &copy, 0, FALSE, DUPLICATE_SAME_ACCESS);
    return copy;
}

// A duplicate of `pid`'s process handle, so it can be used unlocked (empty when unknown).
inline unique_handle process_of(pid_t pid) {
    auto& r = children();
    std::lock_guard lock(r.mutex);
    const auto it = r.children.find(pid);
    return unique_handle(it == r.children.end() ? nullptr : duplicate(it->second.first.get()));
}

}  // namespace windows_children

MCP_LOADTEST_DECL spawned_child spawn_child(const stdio_server& server, child_stderr err) {
    using namespace windows_children;
    const windows_stderr how = err == child_stderr::discard ? windows_stderr::discard
                               : err == child_stderr::pipe  ? windows_stderr::pipe
                               : err == child_stderr::file  ? windows_stderr::file
                                                            : windows_stderr::inherit;
    windows_child w = spawn_windows_child(server, how);
    spawned_child child;
    child.pid = w.pid;
    child.stdin_write = unique_native(w.stdin_write.release());
    child.stdout_read = unique_native(w.stdout_read.release());
    child.stderr_read = unique_native(w.stderr_read.release());
    child.exit_handle = unique_native(duplicate(w.process.get()));
    process_audit::record_spawn(w.pid);
    register_group_job(w.pid, w.job.get());
    auto& r = children();
    std::lock_guard lock(r.mutex);
    r.children[w.pid] = {std::move(w.process), std::move(w.job)};
    return child;
}

MCP_LOADTEST_DECL exit_status peek_exit(pid_t pid) noexcept {
    exit_status s;
    try {
        const auto process = windows_children::process_of(pid);
        DWORD code = 0;
        if (!process || ::WaitForSingleObject(process.get(), 0) != WAIT_OBJECT_0 ||
            !::GetExitCodeProcess(process.get(), &code))
            return s;
        s.exited = true;
        s.code = static_cast<int>(code);
    } catch (...) {
    }
    return s;
}

MCP_LOADTEST_DECL void signal_group(pid_t pgid, end_request how) noexcept {
    if (pgid <= 0) return;
    process_audit::note_descendants(pgid);
    end_group(pgid, how);
    process_audit::signal_escaped(pgid, how);
}

MCP_LOADTEST_DECL void reap(pid_t pid) noexcept {
    signal_group(pid, end_request::kill);
    {
        auto& r = windows_children::children();
        std::lock_guard lock(r.mutex);
        r.children.erase(pid);
    }
    forget_group(pid);
    process_audit::record_reap(pid);
}

MCP_LOADTEST_DECL exit_status kill_and_reap_now(pid_t pid, std::chrono::milliseconds bound) noexcept {
    signal_group(pid, end_request::kill);
    try {
        if (const auto process = windows_children::process_of(pid))
            ::WaitForSingleObject(process.get(), static_cast<DWORD>(bound.count()));
    } catch (...) {
    }
    const exit_status s = peek_exit(pid);
    if (s.exited) reap(pid);
    return s;  // not exited: left for process_audit to report
}

MCP_LOADTEST_DECL void kill_process(pid_t pid) noexcept {
    if (pid <= 0) return;
    unique_handle process(::OpenProcess(PROCESS_TERMINATE, FALSE, static_cast<DWORD>(pid)));
    if (process) ::TerminateProcess(process.get(), 1);
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_WINDOWS
