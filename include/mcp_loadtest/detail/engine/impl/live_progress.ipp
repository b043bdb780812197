// Definitions of detail/engine/live_progress.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/engine/live_progress.hpp>

#include <mcp_loadtest/detail/os/process_info.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string progress_text(const progress_snapshot& p) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "mcp-loadtest %5.1f s / %.1f s | %7.1f calls/s | %llu calls | p99 %s | %llu errors | %llu dropped",
                  p.elapsed_s, p.total_s, p.calls_per_s, static_cast<unsigned long long>(p.calls),
                  p.calls ? format_ms(p.p99).c_str() : "–", static_cast<unsigned long long>(p.errors),
                  static_cast<unsigned long long>(p.dropped));
    return buf;
}

MCP_LOADTEST_DECL bool progress_enabled(progress_mode mode, bool stderr_is_terminal, const char* env_progress,
                                        const char* env_ci) noexcept {
    if (mode != progress_mode::automatic) return mode == progress_mode::on;
    if (env_progress && *env_progress) return std::string_view(env_progress) != "0";
    const bool in_ci = env_ci && *env_ci && std::string_view(env_ci) != "false" && std::string_view(env_ci) != "0";
    return stderr_is_terminal && !in_ci;
}

MCP_LOADTEST_DECL bool progress_enabled(progress_mode mode) noexcept {
    if (mode == progress_mode::off) return false;
    return progress_enabled(mode, stderr_is_terminal(), std::getenv("MCP_LOADTEST_PROGRESS"), std::getenv("CI"));
}

MCP_LOADTEST_DECL live_progress live_progress::start(asio::any_io_executor ex, progress_mode mode, const load_report& report,
                                                     clock::time_point started, std::chrono::nanoseconds total) {
    live_progress p;
    if (!progress_enabled(mode)) return p;
    p.state_ = std::make_shared<state>(ex, report, started, total, stderr_is_terminal());
    asio::co_spawn(ex, run(p.state_), asio::detached);
    return p;
}

MCP_LOADTEST_DECL void live_progress::stop() noexcept {
    if (!state_ || state_->stopped) return;
    state_->stopped = true;
    state_->timer.cancel();
    if (state_->terminal) {
        std::fputs("\r\x1b[K", stderr);  // the summary follows on a clean line
        std::fflush(stderr);
    }
    state_.reset();
}

MCP_LOADTEST_DECL live_progress::state::state(asio::any_io_executor ex, const load_report& r, clock::time_point s, std::chrono::nanoseconds t, bool tty)
    : timer(ex), report(r), started(s), total(t), terminal(tty) {}

MCP_LOADTEST_DECL asio::awaitable<void> live_progress::run(std::shared_ptr<state> s) {
    s->last_at = s->started;
    while (!s->stopped) {
        s->timer.expires_after(std::chrono::seconds(1));
        asio::error_code ec;
        co_await s->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (s->stopped) co_return;  // the report may be gone: read nothing
        const auto now = clock::now();
        const auto& r = s->report;
        progress_snapshot p;
        p.elapsed_s = std::chrono::duration<double>(now - s->started).count();
        p.total_s = std::chrono::duration<double>(s->total).count();
        p.calls = r.overall.calls();
        const double dt = std::chrono::duration<double>(now - s->last_at).count();
        p.calls_per_s = dt > 0 ? static_cast<double>(p.calls - s->last_calls) / dt : 0.0;
        p.p99 = r.overall.histogram.percentile(99.0);
        p.errors = r.overall.outcomes.errors();
        p.dropped = r.dropped;
        s->last_calls = p.calls;
        s->last_at = now;
        const std::string line = progress_text(p);
        if (s->terminal) std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
        else std::fprintf(stderr, "%s\n", line.c_str());
        std::fflush(stderr);
    }
}

}  // namespace mcp_loadtest::detail
