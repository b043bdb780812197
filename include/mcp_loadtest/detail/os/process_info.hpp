// What the library reads of processes, on every operating system: one
// process's counters (the sampler reads them every few milliseconds), who is
// whose child, a process's command line, and a few facts about this process.
// Backends: linux/impl/process_info.ipp (/proc), macos/impl/process_info.ipp
// (libproc; not compiled or run in CI), windows/impl/process_info.ipp (Tool Help
// snapshots, PSAPI, GetProcessTimes).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/platform.hpp>
#include <mcp_loadtest/detail/text/command_text.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mcp_loadtest::detail {

/// One raw reading of a live process.
struct proc_reading {
    std::uint64_t rss_bytes = 0;         ///< resident set (Linux), working set (Windows)
    std::chrono::nanoseconds cpu_time{}; ///< user + system time so far
    std::uint64_t start_ticks = 0;       ///< when it started, in the system's own unit: tells a reused pid apart
    std::uint32_t open_fds = 0;          ///< open file descriptors (Linux), handles (Windows)
    std::uint32_t threads = 0;
};

/// Where a process sits in the process tree, and when it started (which tells
/// it from a later process that reuses its pid).
struct proc_identity {
    pid_t parent = 0;
    pid_t process_group = 0;  ///< 0 where the system has none (Windows)
    pid_t session = 0;        ///< 0 where the system has none (Windows)
    char state = '?';         ///< R, S, D, T, Z (zombie), ...; 'R' for any live process on Windows
    std::uint64_t start_ticks = 0;
};

/// One process as a snapshot of the whole system shows it.
struct proc_entry {
    pid_t pid = 0;
    pid_t parent = 0;
    pid_t process_group = 0;
    pid_t session = 0;
    char state = '?';
    std::uint64_t start_ticks = 0;

    [[nodiscard]] bool dead() const noexcept { return state == 'Z' || state == 'X' || state == 'x'; }
};

/// nullopt when the process is gone, is a zombie, or cannot be read.
[[nodiscard]] MCP_LOADTEST_DECL std::optional<proc_reading> read_proc(pid_t pid) noexcept;

/// nullopt when the process is gone or unreadable (a zombie is returned, state 'Z').
[[nodiscard]] MCP_LOADTEST_DECL std::optional<proc_identity> read_proc_identity(pid_t pid) noexcept;

/// The children of `pid` now. Empty when it is gone. (On Windows a parent id
/// outlives its process and may be reused: a child counts only if it started
/// after its parent did.)
[[nodiscard]] MCP_LOADTEST_DECL std::vector<pid_t> children_of(pid_t pid);

/// Every process visible now: about 1 ms for 80 processes on a busy machine.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<proc_entry> snapshot_processes();

/// The whole command line of a process, as reports keep it (join_command():
/// arguments quoted like a shell, at most `max_chars` bytes). When it is
/// empty (a kernel thread, a zombie, or a process inside execve() whose new
/// command line is not set up yet) its short name in brackets, as ps shows
/// it: "[python3]"; empty when it is gone. On Windows: the executable's full
/// path, without its arguments (another process's arguments are not readable
/// through a documented API). Sentences and tables show short_command() of it.
[[nodiscard]] MCP_LOADTEST_DECL std::string command_line(pid_t pid, std::size_t max_chars = max_command_chars);

/// This process's id.
[[nodiscard]] MCP_LOADTEST_DECL pid_t this_process_id() noexcept;

/// The running program's executable, an absolute path; empty when the system does not say.
[[nodiscard]] MCP_LOADTEST_DECL std::filesystem::path this_process_executable();

/// This process's user + system CPU time so far.
[[nodiscard]] MCP_LOADTEST_DECL std::chrono::nanoseconds this_process_cpu_time() noexcept;

/// The name of a signal that ended a process ("SIGTERM" for 15); "" where the
/// system does not name it (and on Windows, which ends processes without signals).
[[nodiscard]] MCP_LOADTEST_DECL std::string signal_name(int signal);

/// Whether this process's stderr is a terminal (live progress draws only there).
[[nodiscard]] MCP_LOADTEST_DECL bool stderr_is_terminal() noexcept;

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/linux/impl/process_info.ipp>
#include <mcp_loadtest/detail/os/macos/impl/process_info.ipp>
#include <mcp_loadtest/detail/os/windows/impl/process_info.ipp>
#endif
