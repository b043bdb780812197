// Starting a server on Windows: CreateProcessW with overlapped named pipes for
// its stdio (anonymous pipes cannot do overlapped I/O, which Asio's
// windows::stream_handle needs), the command found as a shell finds it (PATH,
// PATHEXT; .cmd/.bat shims such as npx run through cmd.exe), in a Job Object of
// its own that kills its whole tree when closed. Windows only.
//
// The Windows backend of os/child_process.hpp builds on it.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/platform.hpp>

#if MCP_LOADTEST_OS_WINDOWS

#include <mcp_loadtest/detail/os/windows/handles.hpp>
#include <mcp_loadtest/process_status.hpp>
#include <mcp_loadtest/server.hpp>

#include <string>
#include <vector>

namespace mcp_loadtest::detail {

/// Where a Windows child's stderr goes.
enum class windows_stderr { inherit, discard, pipe, file /* stdio_server::stderr_path, truncated */ };

/// A started child: its process, the job holding its tree, and this side's pipe ends.
struct windows_child {
    pid_t pid = 0;
    unique_handle process;      ///< signalled when it exits
    unique_handle job;          ///< KILL_ON_JOB_CLOSE: closing it ends every process of the tree
    unique_handle stdin_write;  ///< overlapped
    unique_handle stdout_read;  ///< overlapped
    unique_handle stderr_read;  ///< overlapped; only with windows_stderr::pipe
};

/// Starts `server`. Throws spawn_error naming what was wrong and what to do.
[[nodiscard]] MCP_LOADTEST_DECL windows_child spawn_windows_child(const stdio_server& server, windows_stderr err);

/// The second step of ending it: CTRL_BREAK_EVENT to its process group (it was
/// started as the leader of a new one). False when it could not be sent (no
/// console is shared with it).
MCP_LOADTEST_DECL bool break_windows_child(const windows_child& child) noexcept;

/// The last step: every process of its job ends with `exit_code`.
MCP_LOADTEST_DECL void terminate_windows_job(const windows_child& child, unsigned exit_code) noexcept;

/// The processes alive in its job now (the server and all it started).
[[nodiscard]] MCP_LOADTEST_DECL std::vector<pid_t> windows_job_processes(const windows_child& child);

/// Whether it has exited, and its exit code.
[[nodiscard]] MCP_LOADTEST_DECL exit_status windows_exit_status(const windows_child& child) noexcept;

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_WINDOWS

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/windows/impl/spawn.ipp>
#endif
