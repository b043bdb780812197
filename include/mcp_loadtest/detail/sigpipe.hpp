// Every transport writes to a peer that may be gone: a write must then fail
// with EPIPE, not kill the test process.
#pragma once

#include <csignal>
#include <mutex>

namespace mcp_loadtest::detail {

inline void ignore_sigpipe_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        // Only the default disposition is changed: a test's own handler stays.
        struct sigaction old {};
        if (::sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL)
            ::signal(SIGPIPE, SIG_IGN);
    });
}

}  // namespace mcp_loadtest::detail
