// Runs one MCP_LOADTEST_CASE body: a coroutine on a fresh io_context on the
// test's own thread (so framework assertions inside it are thread-safe),
// bounded by a whole-case time limit.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/case_time_limit.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/testing/current_case.hpp>

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
MCP_LOADTEST_DECL std::optional<std::string> run_case(asio::awaitable<void> (*make_body)(),
                                                       std::chrono::milliseconds time_limit);

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
// Each case is registered (name, limit, framework: detail/testing/current_case.hpp) and is
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

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/testing/impl/case_runner.ipp>
#endif
