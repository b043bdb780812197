// Spawning, watching, ending and reaping a server process, on every system.
//
// A server is started as the leader of a group of its own (a POSIX process
// group, a Windows Job Object; process_groups.hpp), with its stdin and stdout
// on pipes, so that ending it ends everything it started. Its exit is watched
// without reaping it (a pidfd on Linux, waitid() polling with the generic POSIX
// backend, the process handle on Windows), so its pid, and so its group's id,
// stay reserved until reap().
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/native_handle.hpp>
#include <mcp_loadtest/detail/os/process_groups.hpp>
#include <mcp_loadtest/process_audit.hpp>
#include <mcp_loadtest/process_status.hpp>
#include <mcp_loadtest/server.hpp>

#include <chrono>
#include <string>

namespace mcp_loadtest::detail {

/// Where the child's stderr goes.
enum class child_stderr {
    inherit,  ///< this process's stderr
    discard,  ///< nowhere
    pipe,     ///< a pipe this process reads (spawned_child::stderr_read)
    file,     ///< the file stdio_server::stderr_path, truncated (its folder created)
};

/// The spawned child: its pid (also its group's id) and this side's ends.
struct spawned_child {
    pid_t pid = -1;
    unique_native stdin_write;  ///< requests are written here
    unique_native stdout_read;  ///< replies are read here
    unique_native stderr_read;  ///< with child_stderr::pipe only
    unique_native exit_handle;  ///< becomes ready when it exits (exit_watcher); absent with the generic POSIX backend and on Linux < 5.3 (then polled)
};

/// Starts `server`. Throws spawn_error with an actionable message on failure.
[[nodiscard]] MCP_LOADTEST_DECL spawned_child spawn_child(const stdio_server& server, child_stderr err);

/// Exit status without reaping (the pid, and so the group's id, stays reserved until reap()).
[[nodiscard]] MCP_LOADTEST_DECL exit_status peek_exit(pid_t pid) noexcept;

/// Asks every process of the child's group to end, and the server's known
/// descendants that left the group (read first, while the server may still live).
MCP_LOADTEST_DECL void signal_group(pid_t pgid, end_request how) noexcept;

/// Kills the group's stragglers (and the escaped descendants the audit knows of)
/// and reaps the (already exited) leader.
MCP_LOADTEST_DECL void reap(pid_t pid) noexcept;

/// Last resort, without an event loop (destructors): kill the group and reap,
/// waiting at most `bound` for the system to deliver the kill.
MCP_LOADTEST_DECL exit_status kill_and_reap_now(pid_t pid, std::chrono::milliseconds bound) noexcept;

/// Kills one process at once, as a crash would (session churn's interruption).
MCP_LOADTEST_DECL void kill_process(pid_t pid) noexcept;

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/posix/impl/child_process.ipp>
#include <mcp_loadtest/detail/os/windows/impl/child_process.ipp>
#endif
