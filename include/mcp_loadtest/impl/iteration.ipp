// Definitions of iteration.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/iteration.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace mcp_loadtest {

MCP_LOADTEST_DECL void detail::tally_recorder::record_call(const iteration&, const call_result& r, std::string_view step,
                                                           std::chrono::nanoseconds latency) {
    const auto add = [&](call_stats& s) {
        s.outcomes.add(r.outcome);
        if (r.outcome != outcome::cancelled) s.histogram.record(latency);
        if (r.progress_requested) s.progress.add(r.progress_notifications, r.first_progress, r.progress_violations);
        s.finalize();
    };
    add(tally.overall);
    add(tally.per_tool[detail::per_tool_key(r.method, r.tool)]);
    if (!step.empty()) add(tally.per_step[std::string(step)]);
}

MCP_LOADTEST_DECL void detail::tally_recorder::record_step(const iteration&, std::string_view step, std::chrono::nanoseconds latency) {
    auto& s = tally.per_step[std::string(step)];
    s.outcomes.add(outcome::ok);
    s.histogram.record(latency);
    s.finalize();
}

MCP_LOADTEST_DECL iteration::iteration(std::uint64_t seed)
    : own_(std::make_unique<owned>(seed)), rng_(&own_->rng), to_(&own_->recorder) {}

MCP_LOADTEST_DECL asio::awaitable<void> iteration::think(std::chrono::nanoseconds d) {
    asio::steady_timer timer(co_await asio::this_coro::executor, d);
    asio::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

MCP_LOADTEST_DECL asio::awaitable<call_result> iteration::measure(asio::awaitable<call_result> call) {
    return detail::start_owned(measure_call_job{this, std::string(), std::move(call)});
}

MCP_LOADTEST_DECL asio::awaitable<call_result> iteration::measure(std::string_view name, asio::awaitable<call_result> call) {
    return detail::start_owned(measure_call_job{this, std::string(name), std::move(call)});
}

MCP_LOADTEST_DECL bool iteration::check(bool ok, std::string_view what, std::string_view detail) {
    if (!ok) to_->record_check(*this, what, detail);
    return ok;
}

MCP_LOADTEST_DECL const scenario_tally& iteration::tally() const noexcept {
    static const scenario_tally none;
    return own_ ? own_->recorder.tally : none;
}

MCP_LOADTEST_DECL std::chrono::nanoseconds iteration::latency_of(const call_result& r) {
    // Open models: the first call's latency runs from the iteration's intended
    // start, so a stall shows in the tail instead of silently delaying later sends.
    if (origin_.from_intended && !measured_any_) {
        measured_any_ = true;
        return std::max<std::chrono::nanoseconds>(clock::now() - origin_.intended - r.waited_for_token, r.duration);
    }
    measured_any_ = true;
    return r.duration;
}

MCP_LOADTEST_DECL asio::awaitable<call_result> iteration::measure_call_job::run() {
    call_result r = co_await std::move(call);
    it->to_->record_call(*it, r, name, it->latency_of(r));
    co_return r;
}

MCP_LOADTEST_DECL void detail::tally_recorder::record_check(const iteration& it, std::string_view what, std::string_view detail) {
    tally.failures.add_check(what, detail, it.index());
}

}  // namespace mcp_loadtest
