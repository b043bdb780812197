// Runs one MCP_LOADTEST_CASE body: a coroutine on a fresh io_context on the
// test's own thread (so framework assertions inside it are thread-safe),
// bounded by a whole-case time limit.
#pragma once

#include <mcp_loadtest/case_time_limit.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/current_case.hpp>
#include <mcp_loadtest/detail/format.hpp>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

namespace mcp_loadtest {

namespace detail {

/// Runs the coroutine made by `make_body` to completion. Exceptions from the
/// body (including framework assertion exceptions) are rethrown here. Returns
/// a failure message when the case had to be stopped.
template <class MakeBody>
std::optional<std::string> run_case(MakeBody make_body, std::chrono::milliseconds time_limit) {
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

}  // namespace detail
}  // namespace mcp_loadtest

#define MCP_LOADTEST_DETAIL_CAT2(a, b) a##b
#define MCP_LOADTEST_DETAIL_CAT(a, b) MCP_LOADTEST_DETAIL_CAT2(a, b)
#define MCP_LOADTEST_DETAIL_UNIQUE(prefix) MCP_LOADTEST_DETAIL_CAT(prefix, __COUNTER__)

// Shared shape of the framework adapters: a static coroutine declared, a
// framework test case that runs it, then the user's body as its definition.
// FAIL_MACRO(message) must go through the framework's assertion machinery so
// the failure is counted in JUnit output. A std::exception escaping the body is
// reported the same way, at the case's line; the frameworks' own assertion
// exceptions (REQUIRE) do not derive from std::exception and pass through.
// Each case is registered (name, limit, framework: detail/current_case.hpp) and is
// the current case while its body runs. Adapters define MCP_LOADTEST_DETAIL_FRAMEWORK
// and MCP_LOADTEST_DETAIL_CASE_NAME(args of TEST_CASE_MACRO) -> the framework's test name.
#define MCP_LOADTEST_DETAIL_CASE(TEST_CASE_MACRO, FAIL_MACRO, fn, limit, ...)                              \
    static ::asio::awaitable<void> fn();                                                                 \
    static const ::mcp_loadtest::case_info& MCP_LOADTEST_DETAIL_CAT(fn, _info) =                         \
        ::mcp_loadtest::detail::register_case(MCP_LOADTEST_DETAIL_CASE_NAME(__VA_ARGS__), (limit),       \
                                              MCP_LOADTEST_DETAIL_FRAMEWORK, __FILE__, __LINE__);        \
    TEST_CASE_MACRO(__VA_ARGS__) {                                                                       \
        const ::mcp_loadtest::detail::current_case_scope mcp_loadtest_case_scope(                        \
            MCP_LOADTEST_DETAIL_CAT(fn, _info));                                                         \
        std::optional<std::string> mcp_loadtest_case_failure;                                            \
        try {                                                                                            \
            mcp_loadtest_case_failure = ::mcp_loadtest::detail::run_case(&fn, (limit));                  \
        } catch (const std::exception& mcp_loadtest_e) {                                                 \
            mcp_loadtest_case_failure =                                                                  \
                std::string("an exception escaped the test coroutine: ") + mcp_loadtest_e.what();        \
        }                                                                                                \
        if (mcp_loadtest_case_failure) FAIL_MACRO(*mcp_loadtest_case_failure);                               \
    }                                                                                                    \
    static ::asio::awaitable<void> fn()
