// Spawning, watching, signalling and reaping a server process (POSIX).
//
// Standalone Asio has no process class. A child is started with posix_spawnp
// in a new process group (so signals reach its own children too), with
// close-on-exec pipes, and watched through a pidfd, which becomes readable the
// moment the child exits without reaping it.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/process_audit.hpp>
#include <mcp_loadtest/process_status.hpp>
#include <mcp_loadtest/server.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <spawn.h>
#include <stdexcept>
#include <string>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

extern char** environ;

namespace mcp_loadtest::detail {

/// An owned file descriptor.
class unique_fd {
public:
    unique_fd() = default;
    explicit unique_fd(int fd) noexcept : fd_(fd) {}
    unique_fd(unique_fd&& o) noexcept : fd_(o.release()) {}
    MCP_LOADTEST_DECL unique_fd& operator=(unique_fd&& o) noexcept;
    unique_fd(const unique_fd&) = delete;
    unique_fd& operator=(const unique_fd&) = delete;
    ~unique_fd() { reset(); }
    [[nodiscard]] int get() const noexcept { return fd_; }
    [[nodiscard]] explicit operator bool() const noexcept { return fd_ >= 0; }
    int release() noexcept { return std::exchange(fd_, -1); }
    MCP_LOADTEST_DECL void reset(int fd = -1) noexcept;

private:
    int fd_ = -1;
};

struct pipe_pair {
    unique_fd read_end, write_end;
};

MCP_LOADTEST_DECL pipe_pair make_pipe();

MCP_LOADTEST_DECL int open_pidfd(pid_t pid) noexcept;

/// The spawned child: its pid (also its process group id) and its pipes.
struct spawned_child {
    pid_t pid = -1;
    unique_fd stdin_write;   // we write requests here
    unique_fd stdout_read;   // we read replies here
    unique_fd stderr_read;   // only for capture-to-memory and tee
    unique_fd pidfd;         // readable when the child exits; may be absent on old kernels
};

MCP_LOADTEST_DECL std::string describe_spawn_errno(int err, const stdio_server& server);

/// Builds "KEY=VALUE" strings: the inherited environment with overrides applied.
MCP_LOADTEST_DECL std::vector<std::string> build_environment(const stdio_server& server);

/// Starts `server`. Throws spawn_error with an actionable message on failure.
/// `stderr_fd` is the fd to give the child as fd 2 (-1: inherit ours).
MCP_LOADTEST_DECL spawned_child spawn_child(const stdio_server& server, int stderr_fd);

/// Exit status without reaping (the pid, and so the process group id, stays
/// reserved until reap()).
MCP_LOADTEST_DECL exit_status peek_exit(pid_t pid) noexcept;

/// Signals every process in the child's group, and the server's known
/// descendants that left the group (setsid()): their tree is read first, while
/// the server may still live. ESRCH (group gone) is fine.
MCP_LOADTEST_DECL void signal_group(pid_t pgid, int sig) noexcept;

/// SIGKILLs the group's stragglers (and the escaped descendants the audit
/// knows of) and reaps the (already exited) leader.
MCP_LOADTEST_DECL void reap(pid_t pid) noexcept;

/// Last resort, without an event loop (destructors): SIGKILL the group and reap,
/// waiting at most `bound` for the kernel to deliver the kill.
MCP_LOADTEST_DECL exit_status kill_and_reap_now(pid_t pid, std::chrono::milliseconds bound) noexcept;

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/impl/child_process.ipp>
#endif
