// What each thread of a process is doing now. Linux (linux/impl/): from
// /proc/<pid>/task/<tid>: stat (its state), comm (its name), wchan (the kernel
// function it sleeps in) and syscall (the system call it is blocked in, with
// its arguments); reading `syscall` needs the same permission as attaching a
// debugger: a server the test started is its child, which is allowed.
// Windows (windows/impl/): the thread ids only (Tool Help); Windows shows no
// thread's wait state to another process, so each reads as state '-'.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/process_info.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mcp_loadtest::detail {

/// What a thread state of '-' means: the system gives none (Windows).
inline constexpr char state_not_shown = '-';

/// One thread as the system shows it.
struct thread_reading {
    pid_t tid = 0;
    std::string name;  ///< comm: at most 15 bytes
    char state = '?';  ///< R, S, D, T, t, Z, ...; '?' ended meanwhile; state_not_shown
    std::string wchan;  ///< "" when running or hidden ("0")
    /// The system call it is in: >= 0 its number; -1 blocked outside a system
    /// call (a page fault); -2 running on a CPU; -3 unreadable (permission).
    long syscall = -3;
    std::array<std::uint64_t, 6> args{};
};

/// "/proc/<pid>/task/<tid>/<file>" into buf (trimmed of its final newline); false when unreadable.
MCP_LOADTEST_DECL bool read_task_file(pid_t pid, pid_t tid, const char* file, std::string& out);

/// The thread ids of a process, in /proc's order (the main thread first). Empty when it is gone.
MCP_LOADTEST_DECL std::vector<pid_t> thread_ids(pid_t pid);

/// Parses a task's `syscall` file: "202 0x7f.. 0x80 ... sp pc", "-1 sp pc" or "running".
MCP_LOADTEST_DECL void parse_syscall_line(const std::string& text, thread_reading& t);

/// A thread's state, name, wchan and system call; state '?' when it ended meanwhile.
MCP_LOADTEST_DECL thread_reading read_thread(pid_t pid, pid_t tid);

/// What fd `fd` of `pid` is: "pipe:[123]", "socket:[456]", "/dev/null", ...; "" when unknown.
MCP_LOADTEST_DECL std::string fd_target(pid_t pid, std::uint64_t fd);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/impl/thread_readings.ipp>
#include <mcp_loadtest/detail/os/linux/impl/thread_readings.ipp>
#include <mcp_loadtest/detail/os/windows/impl/thread_readings.ipp>
#include <mcp_loadtest/detail/os/macos/impl/thread_readings.ipp>
#endif
