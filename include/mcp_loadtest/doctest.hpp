// doctest integration: MCP_LOADTEST_CASE and check macros.
//
//     #include <doctest/doctest.h>
//     #include <mcp_loadtest/doctest.hpp>
//
//     MCP_LOADTEST_CASE("first tools/call answers") {
//         auto s = co_await mcp_loadtest::connect(mcp_loadtest::stdio_server{"python3", {"server.py"}});
//         MCP_CHECK_OK(co_await s.call_tool("echo", {{"message", "hi"}}));
//     }
#pragma once

#ifndef DOCTEST_LIBRARY_INCLUDED
#error "include <doctest/doctest.h> before <mcp_loadtest/doctest.hpp>"
#endif

#include <mcp_loadtest/detail/case_runner.hpp>
// Only the session layer: load tests add <mcp_loadtest/run.hpp>, detectors
// <mcp_loadtest/detectors.hpp> (each brings what its assertion macros need),
// so a test file pays the compile time of what it uses.
#include <mcp_loadtest/process_audit.hpp>
#include <mcp_loadtest/session.hpp>
#include <mcp_loadtest/when_all.hpp>

// A counted failure (doctest's FAIL_CHECK is not counted in JUnit output).
#define MCP_LOADTEST_DETAIL_DOCTEST_FAIL(message) DOCTEST_CHECK_MESSAGE(false, message)

/// A doctest test case whose body is a coroutine (co_await freely). Extra
/// arguments after the name are doctest decorators.
#define MCP_LOADTEST_CASE(...)                                                                      \
    MCP_LOADTEST_DETAIL_CASE(DOCTEST_TEST_CASE, MCP_LOADTEST_DETAIL_DOCTEST_FAIL,                                 \
                             MCP_LOADTEST_DETAIL_UNIQUE(mcp_loadtest_case_body_),                   \
                             ::mcp_loadtest::default_case_time_limit(), __VA_ARGS__)

/// The same with its own whole-case time limit (a std::chrono duration).
#define MCP_LOADTEST_CASE_LIMIT(limit, ...)                                                         \
    MCP_LOADTEST_DETAIL_CASE(DOCTEST_TEST_CASE, MCP_LOADTEST_DETAIL_DOCTEST_FAIL,                                 \
                             MCP_LOADTEST_DETAIL_UNIQUE(mcp_loadtest_case_body_),                   \
                             std::chrono::duration_cast<std::chrono::milliseconds>(limit), __VA_ARGS__)

/// Checks that a call_result is ok; on failure prints the call and its outcome.
#define MCP_CHECK_OK(...)                                                                           \
    do {                                                                                            \
        const ::mcp_loadtest::call_result& mcp_loadtest_r = (__VA_ARGS__);                         \
        DOCTEST_CHECK_MESSAGE(mcp_loadtest_r.ok(),                                                  \
                              (mcp_loadtest_r.describe_call() + ": " + mcp_loadtest_r.describe()));   \
    } while (false)
#define MCP_REQUIRE_OK(...)                                                                         \
    do {                                                                                            \
        const ::mcp_loadtest::call_result& mcp_loadtest_r = (__VA_ARGS__);                          \
        DOCTEST_REQUIRE_MESSAGE(mcp_loadtest_r.ok(),                                                \
                                (mcp_loadtest_r.describe_call() + ": " + mcp_loadtest_r.describe())); \
    } while (false)
/// Checks a call's outcome, e.g. MCP_CHECK_OUTCOME(r, mcp_loadtest::outcome::hang).
#define MCP_CHECK_OUTCOME(result, expected)                                                         \
    do {                                                                                            \
        const ::mcp_loadtest::call_result& mcp_loadtest_r = (result);                               \
        DOCTEST_CHECK_MESSAGE(mcp_loadtest_r.outcome == (expected),                                 \
                              (mcp_loadtest_r.describe_call() + ": expected " +                     \
                                  std::string(::mcp_loadtest::to_string(expected)) + ", got " +     \
                                  mcp_loadtest_r.describe()));                                     \
    } while (false)

// ---- load reports and detectors ----------------------------------------------
// Each prints what was violated, expected vs actual, and what it means.

#define MCP_LOADTEST_DETAIL_DOCTEST_ASSERT(KIND, text_expr)                                         \
    do {                                                                                            \
        const std::string mcp_loadtest_text = (text_expr);                                          \
        DOCTEST_##KIND##_MESSAGE(mcp_loadtest_text.empty(), mcp_loadtest_text);                     \
    } while (false)

/// The load report met every threshold (and the run was not aborted).
#define MCP_CHECK_PASSED(report) \
    MCP_LOADTEST_DETAIL_DOCTEST_ASSERT(CHECK, ::mcp_loadtest::detail::passed_failure(report))
#define MCP_REQUIRE_PASSED(report) \
    MCP_LOADTEST_DETAIL_DOCTEST_ASSERT(REQUIRE, ::mcp_loadtest::detail::passed_failure(report))
/// The deadlock probe found no call that never answered.
#define MCP_CHECK_NO_DEADLOCK(probe) \
    MCP_LOADTEST_DETAIL_DOCTEST_ASSERT(CHECK, ::mcp_loadtest::detail::no_deadlock_failure(probe))
#define MCP_REQUIRE_NO_DEADLOCK(probe) \
    MCP_LOADTEST_DETAIL_DOCTEST_ASSERT(REQUIRE, ::mcp_loadtest::detail::no_deadlock_failure(probe))
/// The race check saw one response only.
#define MCP_CHECK_NO_DIVERGENCE(race) \
    MCP_LOADTEST_DETAIL_DOCTEST_ASSERT(CHECK, ::mcp_loadtest::detail::no_divergence_failure(race))
#define MCP_REQUIRE_NO_DIVERGENCE(race) \
    MCP_LOADTEST_DETAIL_DOCTEST_ASSERT(REQUIRE, ::mcp_loadtest::detail::no_divergence_failure(race))
/// No sampled server leaked memory, fds or threads.
#define MCP_CHECK_NO_LEAK(report) \
    MCP_LOADTEST_DETAIL_DOCTEST_ASSERT(CHECK, ::mcp_loadtest::detail::no_leak_failure(report))
#define MCP_REQUIRE_NO_LEAK(report) \
    MCP_LOADTEST_DETAIL_DOCTEST_ASSERT(REQUIRE, ::mcp_loadtest::detail::no_leak_failure(report))
/// An ad-hoc objective: MCP_CHECK_SLO(report, report.overall.latency.p99 < 300ms).
/// On failure it prints the expression and the report's summary.
#define MCP_CHECK_SLO(report, ...) DOCTEST_CHECK_MESSAGE((__VA_ARGS__), (report).summary())
#define MCP_REQUIRE_SLO(report, ...) DOCTEST_REQUIRE_MESSAGE((__VA_ARGS__), (report).summary())
