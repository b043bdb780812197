// The Unix backend (Linux, macOS; both Linux backends) of detail/os/sigpipe.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/os/sigpipe.hpp>

#if MCP_LOADTEST_OS_UNIX

#include <csignal>
#include <mutex>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void ignore_sigpipe_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        // Only the default disposition is changed: a test's own handler stays.
        struct sigaction old {};
        if (::sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL)
            ::signal(SIGPIPE, SIG_IGN);
    });
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_UNIX
