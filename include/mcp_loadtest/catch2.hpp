// Catch2 (v2 or v3) integration: MCP_LOADTEST_CASE and check macros.
//
//     #include <catch2/catch.hpp>                  // Catch2 v2
//     // or #include <catch2/catch_test_macros.hpp> // Catch2 v3
//     #include <mcp_loadtest/catch2.hpp>
#pragma once

#if defined(CATCH_VERSION_MAJOR) || defined(CATCH_TEST_MACROS_HPP_INCLUDED)
#else
#error "include <catch2/catch.hpp> (v2) or <catch2/catch_test_macros.hpp> (v3) before <mcp_loadtest/catch2.hpp>"
#endif

#include <mcp_loadtest/detail/case_runner.hpp>
// Only the session layer: load tests add <mcp_loadtest/run.hpp>, detectors
// <mcp_loadtest/detectors.hpp> (each brings what its assertion macros need),
// so a test file pays the compile time of what it uses.
#include <mcp_loadtest/process_audit.hpp>
#include <mcp_loadtest/session.hpp>
#include <mcp_loadtest/when_all.hpp>

#ifdef CATCH_CONFIG_PREFIX_ALL
#define MCP_LOADTEST_DETAIL_CATCH_CASE CATCH_TEST_CASE
#define MCP_LOADTEST_DETAIL_CATCH_FAIL_CHECK CATCH_FAIL_CHECK
#define MCP_LOADTEST_DETAIL_CATCH_INFO CATCH_INFO
#define MCP_LOADTEST_DETAIL_CATCH_CHECK CATCH_CHECK
#define MCP_LOADTEST_DETAIL_CATCH_REQUIRE CATCH_REQUIRE
#else
#define MCP_LOADTEST_DETAIL_CATCH_CASE TEST_CASE
#define MCP_LOADTEST_DETAIL_CATCH_FAIL_CHECK FAIL_CHECK
#define MCP_LOADTEST_DETAIL_CATCH_INFO INFO
#define MCP_LOADTEST_DETAIL_CATCH_CHECK CHECK
#define MCP_LOADTEST_DETAIL_CATCH_REQUIRE REQUIRE
#endif

/// A Catch2 test case whose body is a coroutine. Arguments: name, then tags.
#define MCP_LOADTEST_CASE(...)                                                                      \
    MCP_LOADTEST_DETAIL_CASE(MCP_LOADTEST_DETAIL_CATCH_CASE, MCP_LOADTEST_DETAIL_CATCH_FAIL_CHECK,  \
                             MCP_LOADTEST_DETAIL_UNIQUE(mcp_loadtest_case_body_),                   \
                             ::mcp_loadtest::default_case_time_limit(), __VA_ARGS__)

#define MCP_LOADTEST_CASE_LIMIT(limit, ...)                                                         \
    MCP_LOADTEST_DETAIL_CASE(MCP_LOADTEST_DETAIL_CATCH_CASE, MCP_LOADTEST_DETAIL_CATCH_FAIL_CHECK,  \
                             MCP_LOADTEST_DETAIL_UNIQUE(mcp_loadtest_case_body_),                   \
                             std::chrono::duration_cast<std::chrono::milliseconds>(limit), __VA_ARGS__)

#define MCP_CHECK_OK(...)                                                                           \
    do {                                                                                            \
        const ::mcp_loadtest::call_result& mcp_loadtest_r = (__VA_ARGS__);                         \
        MCP_LOADTEST_DETAIL_CATCH_INFO(mcp_loadtest_r.describe_call() << ": " << mcp_loadtest_r.describe()); \
        MCP_LOADTEST_DETAIL_CATCH_CHECK(mcp_loadtest_r.ok());                                       \
    } while (false)
#define MCP_REQUIRE_OK(...)                                                                         \
    do {                                                                                            \
        const ::mcp_loadtest::call_result& mcp_loadtest_r = (__VA_ARGS__);                         \
        MCP_LOADTEST_DETAIL_CATCH_INFO(mcp_loadtest_r.describe_call() << ": " << mcp_loadtest_r.describe()); \
        MCP_LOADTEST_DETAIL_CATCH_REQUIRE(mcp_loadtest_r.ok());                                     \
    } while (false)
#define MCP_CHECK_OUTCOME(result, expected)                                                         \
    do {                                                                                            \
        const ::mcp_loadtest::call_result& mcp_loadtest_r = (result);                               \
        MCP_LOADTEST_DETAIL_CATCH_INFO(mcp_loadtest_r.describe_call() << ": expected "              \
                                       << ::mcp_loadtest::to_string(expected) << ", got "           \
                                       << mcp_loadtest_r.describe());                               \
        MCP_LOADTEST_DETAIL_CATCH_CHECK(mcp_loadtest_r.outcome == (expected));                      \
    } while (false)

// ---- load reports and detectors ----------------------------------------------

#define MCP_LOADTEST_DETAIL_CATCH_ASSERT(MACRO, text_expr)                                          \
    do {                                                                                            \
        const std::string mcp_loadtest_text = (text_expr);                                          \
        MCP_LOADTEST_DETAIL_CATCH_INFO(mcp_loadtest_text);                                          \
        MACRO(mcp_loadtest_text.empty());                                                           \
    } while (false)

#define MCP_CHECK_PASSED(report) \
    MCP_LOADTEST_DETAIL_CATCH_ASSERT(MCP_LOADTEST_DETAIL_CATCH_CHECK, ::mcp_loadtest::detail::passed_failure(report))
#define MCP_REQUIRE_PASSED(report) \
    MCP_LOADTEST_DETAIL_CATCH_ASSERT(MCP_LOADTEST_DETAIL_CATCH_REQUIRE, ::mcp_loadtest::detail::passed_failure(report))
#define MCP_CHECK_NO_DEADLOCK(probe) \
    MCP_LOADTEST_DETAIL_CATCH_ASSERT(MCP_LOADTEST_DETAIL_CATCH_CHECK, ::mcp_loadtest::detail::no_deadlock_failure(probe))
#define MCP_REQUIRE_NO_DEADLOCK(probe) \
    MCP_LOADTEST_DETAIL_CATCH_ASSERT(MCP_LOADTEST_DETAIL_CATCH_REQUIRE, ::mcp_loadtest::detail::no_deadlock_failure(probe))
#define MCP_CHECK_NO_DIVERGENCE(race) \
    MCP_LOADTEST_DETAIL_CATCH_ASSERT(MCP_LOADTEST_DETAIL_CATCH_CHECK, ::mcp_loadtest::detail::no_divergence_failure(race))
#define MCP_REQUIRE_NO_DIVERGENCE(race) \
    MCP_LOADTEST_DETAIL_CATCH_ASSERT(MCP_LOADTEST_DETAIL_CATCH_REQUIRE, ::mcp_loadtest::detail::no_divergence_failure(race))
#define MCP_CHECK_NO_LEAK(report) \
    MCP_LOADTEST_DETAIL_CATCH_ASSERT(MCP_LOADTEST_DETAIL_CATCH_CHECK, ::mcp_loadtest::detail::no_leak_failure(report))
#define MCP_REQUIRE_NO_LEAK(report) \
    MCP_LOADTEST_DETAIL_CATCH_ASSERT(MCP_LOADTEST_DETAIL_CATCH_REQUIRE, ::mcp_loadtest::detail::no_leak_failure(report))
#define MCP_CHECK_SLO(report, ...)                                                                  \
    do {                                                                                            \
        MCP_LOADTEST_DETAIL_CATCH_INFO((report).summary());                                         \
        MCP_LOADTEST_DETAIL_CATCH_CHECK(__VA_ARGS__);                                               \
    } while (false)
#define MCP_REQUIRE_SLO(report, ...)                                                                \
    do {                                                                                            \
        MCP_LOADTEST_DETAIL_CATCH_INFO((report).summary());                                         \
        MCP_LOADTEST_DETAIL_CATCH_REQUIRE(__VA_ARGS__);                                             \
    } while (false)
