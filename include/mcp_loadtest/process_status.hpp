// How a spawned server ended, and the error thrown when one cannot be started.
// Public types, so reports and catch clauses need no process machinery.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <cstring>
#include <stdexcept>
#include <string>

namespace mcp_loadtest {

/// How a server process ended.
struct exit_status {
    bool exited = false;     ///< the process is gone (either way below)
    int code = -1;           ///< exit code when it exited normally, else -1
    int signal = 0;          ///< terminating signal, else 0

    [[nodiscard]] MCP_LOADTEST_DECL std::string describe() const;
};

/// Thrown when a server cannot be started. The message says why and what to try.
class spawn_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/process_status.ipp>
#endif
