// Live progress of a load run on stderr (run_options::progress, report/terminal.hpp): once a
// second one line "elapsed / total, calls/s, p99 so far, errors, dropped", rewritten in place
// (\r) on a terminal and one line per update otherwise. Off, it costs nothing: no timer, no
// coroutine, no check on the call path.
#pragma once

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/clock.hpp>
#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/load_report.hpp>
#include <mcp_loadtest/run_options.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

/// What one progress line shows.
struct progress_snapshot {
    double elapsed_s = 0;
    double total_s = 0;                  ///< the workload's planned duration (0: unknown)
    double calls_per_s = 0;              ///< over the last update
    std::uint64_t calls = 0;             ///< ended so far
    std::chrono::nanoseconds p99{0};     ///< of every call so far
    std::uint64_t errors = 0;
    std::uint64_t dropped = 0;
};

[[nodiscard]] MCP_LOADTEST_DECL std::string progress_text(const progress_snapshot& p);

/// The rule, with its inputs given: an explicit on/off wins; automatic follows
/// MCP_LOADTEST_PROGRESS (1 on, 0 off) when set, else shows progress only on a terminal outside CI
/// (CI set to anything but "false" or "0" counts as CI).
[[nodiscard]] MCP_LOADTEST_DECL bool progress_enabled(progress_mode mode, bool stderr_is_terminal, const char* env_progress,
                                                      const char* env_ci) noexcept;

[[nodiscard]] MCP_LOADTEST_DECL bool progress_enabled(progress_mode mode) noexcept;

/// Runs the progress coroutine while alive; stop() (or the destructor) ends it at once. Held by
/// the engine's execute() frame, so an exception out of the run stops it too.
class live_progress {
public:
    live_progress() = default;  // off
    live_progress(const live_progress&) = delete;
    live_progress& operator=(const live_progress&) = delete;
    live_progress(live_progress&& o) noexcept : state_(std::move(o.state_)) {}
    ~live_progress() { stop(); }

    /// Starts the updates when progress_enabled(mode); otherwise returns an inert object. `report`
    /// must outlive stop() (the engine's own report; read on the same executor, never after stop()).
    [[nodiscard]] static MCP_LOADTEST_DECL live_progress start(asio::any_io_executor ex, progress_mode mode, const load_report& report,
                                                               clock::time_point started, std::chrono::nanoseconds total);

    MCP_LOADTEST_DECL void stop() noexcept;

    [[nodiscard]] bool running() const noexcept { return state_ != nullptr; }

private:
    struct state {
        MCP_LOADTEST_DECL state(asio::any_io_executor ex, const load_report& r, clock::time_point s, std::chrono::nanoseconds t, bool tty);
        asio::steady_timer timer;
        const load_report& report;
        clock::time_point started;
        std::chrono::nanoseconds total;
        bool terminal;
        bool stopped = false;
        std::uint64_t last_calls = 0;
        clock::time_point last_at{};
    };

    static MCP_LOADTEST_DECL asio::awaitable<void> run(std::shared_ptr<state> s);

    std::shared_ptr<state> state_;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/engine/impl/live_progress.ipp>
#endif
