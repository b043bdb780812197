// Definitions of detail/testing/case_runner.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/testing/case_runner.hpp>

#include <mcp_loadtest/detail/text/format.hpp>

#include <chrono>
#include <exception>
#include <optional>
#include <string>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::optional<std::string> run_case(asio::awaitable<void> (*make_body)(),
                                                       std::chrono::milliseconds time_limit) {
    using clock = std::chrono::steady_clock;
    std::optional<std::string> failure;
    std::exception_ptr error;
    {
        asio::io_context ctx(1);
        bool done = false;
        asio::cancellation_signal cancel;
        asio::co_spawn(ctx, make_body(),
                       asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr e) {
                           done = true;
                           error = e;
                       }));
        const auto run_until = [&](clock::time_point until) {
            while (!done && clock::now() < until) {
                if (ctx.run_one_until(until) == 0 && ctx.stopped()) return;  // nothing left to wait on
            }
        };
        run_until(clock::now() + time_limit);
        if (!done) {
            const auto limit = format_seconds(time_limit);
            if (ctx.stopped()) {
                failure = "the test coroutine is suspended on something that can never complete (no I/O or "
                          "timer is pending). A handler or channel was probably never invoked.";
            } else {
                failure = "MCP_LOADTEST_CASE exceeded its time limit of " + limit +
                          " and was cancelled. Every await should be bounded: give calls a timeout, or raise "
                          "the limit with MCP_LOADTEST_CASE_LIMIT(limit, ...) (MCP_LOADTEST_TEST_LIMIT under GoogleTest) or "
                          "$MCP_LOADTEST_CASE_TIME_LIMIT.";
                cancel.emit(asio::cancellation_type::terminal);
                ctx.restart();
                run_until(clock::now() + std::chrono::seconds(2));
            }
        }
        if (done) ctx.poll();  // let servers that were dropped finish their bookkeeping
        // Destroying ctx destroys any still-suspended frame: their sessions kill and reap their servers.
    }
    if (error && !failure) std::rethrow_exception(error);
    return failure;
}

}  // namespace mcp_loadtest::detail
