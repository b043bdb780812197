// Watching a child's exit with POSIX alone (no pidfd): the generic POSIX
// backend's exit_watcher (macOS, and Linux built with MCP_LOADTEST_GENERIC_POSIX),
// and the Linux backend's when the kernel has no pidfd_open (older than 5.3).
#pragma once

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/os/native_handle.hpp>

#if MCP_LOADTEST_OS_UNIX

#include <asio/compose.hpp>
#include <asio/steady_timer.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <signal.h>
#include <sys/wait.h>

namespace mcp_loadtest::detail {

/// Whether child `pid` has exited, without reaping it: waitid(P_PID, WNOWAIT)
/// on that pid only, so no other child's exit status is ever taken.
inline bool child_has_exited(pid_t pid) noexcept {
    siginfo_t info{};
    int r;
    while ((r = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT)) != 0 && errno == EINTR) {
    }
    // ECHILD: not (or no longer) this process's child; nothing will ever arrive, so it counts as gone.
    if (r != 0) return errno == ECHILD;
    return info.si_pid != 0;
}

/// Becomes ready when a child exits, like a pidfd, by polling child_has_exited():
/// after 1 ms, then 2, 4, 8, 16 and every 20 ms. One timer per child, no signal
/// handler (SIGCHLD stays the program's), bounded cost with hundreds of children.
/// close() ends a wait with operation_aborted.
class exit_poller {
public:
    static constexpr std::chrono::milliseconds first_delay{1};
    static constexpr std::chrono::milliseconds max_delay{20};

    explicit exit_poller(const asio::any_io_executor& ex) : timer_(ex) {}

    /// Watches `pid` from now on.
    void watch(pid_t pid) noexcept { pid_ = pid; }
    [[nodiscard]] bool is_open() const noexcept { return pid_ > 0; }

    template <class Handler>
    void async_wait(Handler&& handler) {
        asio::async_compose<Handler, void(asio::error_code)>(poll_op{this, first_delay, false}, handler, timer_);
    }

    void close() noexcept {
        pid_ = -1;
        timer_.cancel();
    }

private:
    struct poll_op {
        exit_poller* owner;
        std::chrono::milliseconds delay;
        bool started;

        template <class Self>
        void operator()(Self& self, asio::error_code ec = {}) {
            // The first step only arms the timer: the handler never runs inside async_wait().
            if (started) {
                if (!ec && !owner->is_open()) ec = asio::error::operation_aborted;
                if (ec) {
                    self.complete(ec);
                    return;
                }
                if (child_has_exited(owner->pid_)) {
                    self.complete(asio::error_code());
                    return;
                }
            }
            started = true;
            owner->timer_.expires_after(delay);
            delay = std::min(delay * 2, max_delay);
            owner->timer_.async_wait(std::move(self));
        }
    };

    asio::steady_timer timer_;
    pid_t pid_ = -1;
};

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_UNIX
