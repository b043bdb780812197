// run(): a load test against one server description. What each iteration does
// is a mix of calls, or any scenario body of your own.
//
//     mlt::stdio_server server{"python3", {"-m", "my_server"}};
//     mlt::mix calls{{"get_market_data", mlt::args("ticker", "AAPL"), 1.0}, {"analyze", mlt::args("ticker", "SPY"), 0.3}};
//     auto report = co_await mlt::run(server, mlt::open_load{.rate = 200, .duration = 20s}, calls,
//                                     mlt::thresholds{.p99 = 500ms, .error_rate = 0.01});
//
//     auto checkout = [](mlt::session& s, mlt::iteration& it) -> asio::awaitable<void> { ... };
//     auto report = co_await mlt::run(server, mlt::closed_load{.users = 8, .duration = 5s}, checkout);
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/call_mix.hpp>
#include <mcp_loadtest/iteration.hpp>
#include <mcp_loadtest/load_report.hpp>
#include <mcp_loadtest/report/run_directory.hpp>  // where run() wrote its report: last_run_directory()
#include <mcp_loadtest/run_options.hpp>
#include <mcp_loadtest/thresholds.hpp>
#include <mcp_loadtest/workload.hpp>

#include <type_traits>
#include <utility>

namespace mcp_loadtest {

/// What each iteration of run() does: a mix (each iteration draws one call or
/// pattern), or a scenario body of your own, `(session&, iteration&) -> awaitable<void>`.
class iteration_body {
public:
    iteration_body(mix calls) : calls_(std::move(calls)) {}
    template <class F>
        requires std::is_invocable_r_v<asio::awaitable<void>, F&, session&, iteration&>
    iteration_body(F body) : body_(std::move(body)) {}
    // Out of line, like mix's: a test file passing a body does not compile its members'.
    MCP_LOADTEST_DECL iteration_body(const iteration_body&);
    MCP_LOADTEST_DECL iteration_body(iteration_body&&) noexcept;
    MCP_LOADTEST_DECL iteration_body& operator=(const iteration_body&);
    MCP_LOADTEST_DECL iteration_body& operator=(iteration_body&&) noexcept;
    MCP_LOADTEST_DECL ~iteration_body();

    /// The body as the engine runs it; a mix's calls are bounded by `call`.
    [[nodiscard]] MCP_LOADTEST_DECL scenario to_scenario(const call_options& call) &&;

private:
    mix calls_;
    scenario body_;
};

/// Runs `load` against `server` (spawning run_options::sessions processes); each
/// iteration runs `body` on one of the sessions (round-robin), and the report is
/// judged by `objectives`. What the body measures is recorded; what it throws is
/// counted and the run goes on. The run ends when the workload's duration has
/// passed (or its iterations are done) and the iterations still running have ended.
MCP_LOADTEST_DECL asio::awaitable<load_report> run(any_server server, workload load, iteration_body body, thresholds objectives,
                                                   run_options options);
// Overloads, not defaulted arguments: a defaulted thresholds{} would be a
// temporary inside the caller's co_await (docs/index.md#compiler-notes).
MCP_LOADTEST_DECL asio::awaitable<load_report> run(any_server server, workload load, iteration_body body, thresholds objectives);
MCP_LOADTEST_DECL asio::awaitable<load_report> run(any_server server, workload load, iteration_body body);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/run.ipp>
#endif
