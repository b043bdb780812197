// Describing the server under test.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace mcp_loadtest {

using namespace std::chrono_literals;

/// Where a spawned server's stderr goes (decision record: seeds/001).
enum class stderr_mode {
    inherit,  ///< the test's own stderr; no pipe, no cost (default)
    discard,  ///< /dev/null
    capture,  ///< to `stderr_path` (handed to the child directly, no copying) or,
              ///< without a path, into a bounded in-memory tail
    tee,      ///< to the test's stderr and to `stderr_path` / the in-memory tail
};

/// How to shut a stdio server down: close its stdin and wait, then SIGTERM its
/// process group and wait, then SIGKILL it and reap.
struct shutdown_policy {
    std::chrono::milliseconds after_stdin_close = 2s;
    std::chrono::milliseconds after_sigterm = 2s;
    std::chrono::milliseconds after_sigkill = 5s;
};

/// A server started as a child process speaking newline-delimited JSON-RPC on
/// its stdin/stdout. Spawned by argv (no shell) in its own process group.
///
///     mcp_loadtest::stdio_server{"python3", {"-m", "my_server"}}
struct stdio_server {
    std::string command{};                       ///< looked up on PATH if it has no '/'
    std::vector<std::string> args{};
    std::map<std::string, std::string> env{};    ///< added to (or replacing) the environment
    bool inherit_environment = true;           ///< start from the test's environment
    std::filesystem::path working_dir{};         ///< empty: the test's working directory
    stderr_mode stderr_to = stderr_mode::inherit;
    std::filesystem::path stderr_path{};         ///< file for capture/tee (truncated at spawn)
    std::size_t stderr_tail_bytes = 64 * 1024; ///< in-memory tail kept for messages
    std::size_t max_message_size = 16 * 1024 * 1024;  ///< longest accepted stdout line
    std::chrono::milliseconds startup_timeout = 10s;   ///< bound on the whole opening (era detection + initialize)
    shutdown_policy shutdown{};
    /// Bytes waiting to be written to a server that is not reading its stdin;
    /// past it the session ends as `hang`, saying the server stopped reading.
    std::size_t max_send_queue = 64 * 1024 * 1024;

    /// `command arg1 arg2`, for messages.
    [[nodiscard]] MCP_LOADTEST_DECL std::string command_line() const;
};

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/server.ipp>
#endif
