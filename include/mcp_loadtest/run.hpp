// run(): a load test against one server description.
//
//     mlt::stdio_server server{"python3", {"-m", "my_server"}};
//     mlt::mix calls{{"get_market_data", {{"ticker", "AAPL"}}, 1.0}, {"analyze", {{"ticker", "SPY"}}, 0.3}};
//     auto report = co_await mlt::run(server, mlt::open_load{.rate = 200, .duration = 20s}, calls,
//                                     mlt::thresholds{.p99 = 500ms, .error_rate = 0.01});
//     MCP_REQUIRE_PASSED(report);
#pragma once

#include <mcp_loadtest/detail/load_engine.hpp>

namespace mcp_loadtest {

/// Runs `load` against `server` (spawning run_options::sessions processes),
/// drawing each iteration from `calls`, and judges the result by `objectives`.
/// Every call is bounded by run_options::call; the run ends when the workload's
/// duration has passed and the calls still in flight have ended.
inline asio::awaitable<load_report> run(any_server server, workload load, mix calls, thresholds objectives,
                                        run_options options) {
    return detail::run_load(std::make_shared<detail::load_job>(detail::load_job{
        std::move(server), std::move(load), std::move(calls), std::move(objectives), std::move(options)}));
}
// Overloads instead of defaulted arguments: see the GCC 12 note in session.hpp.
inline asio::awaitable<load_report> run(any_server server, workload load, mix calls, thresholds objectives) {
    return run(std::move(server), std::move(load), std::move(calls), std::move(objectives), run_options{});
}
inline asio::awaitable<load_report> run(any_server server, workload load, mix calls) {
    return run(std::move(server), std::move(load), std::move(calls), thresholds{}, run_options{});
}

}  // namespace mcp_loadtest

// The texts of the assertion macros (MCP_REQUIRE_PASSED and friends).
#include <mcp_loadtest/assertions.hpp>
