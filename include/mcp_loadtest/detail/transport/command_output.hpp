// Running a short command to its end (`node --version`), bounded, through the
// stdio transport's spawning, exit watching and bounded shutdown: what it
// printed and how it ended. For the setup doctor (doctor.hpp).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/process_status.hpp>
#include <mcp_loadtest/server.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace mcp_loadtest::detail {

struct command_output {
    bool started = false;
    std::string error;       ///< why it could not start (spawn_error's message)
    bool timed_out = false;  ///< still running after the bound (then ended: stdin closed, group signalled, killed)
    exit_status status;
    std::string out;         ///< its stdout lines (at most 4 KiB)
    std::string err;         ///< the end of its stderr (at most 4 KiB)
};

/// Runs `command` until it exits, at most `bound`; its stdin is closed at
/// once (a program that waits for input ends at EOF).
MCP_LOADTEST_DECL asio::awaitable<command_output> run_to_end(std::shared_ptr<stdio_server> command,
                                                             std::chrono::milliseconds bound);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/command_output.ipp>
#endif
