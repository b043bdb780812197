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

#include <mcp_loadtest/detail/testing/case_runner.hpp>
// Only the session layer: load tests add <mcp_loadtest/run.hpp>, detectors
// <mcp_loadtest/detectors.hpp> (each brings what its assertion macros need),
// so a test file pays the compile time of what it uses.
#include <mcp_loadtest/process_audit.hpp>
#include <mcp_loadtest/session.hpp>
#include <mcp_loadtest/when_all.hpp>

#ifdef CATCH_CONFIG_PREFIX_ALL
#define MCP_LOADTEST_DETAIL_CATCH_INFO CATCH_INFO
#define MCP_LOADTEST_DETAIL_CATCH_CHECK CATCH_CHECK
#define MCP_LOADTEST_DETAIL_CATCH_REQUIRE CATCH_REQUIRE
#define MCP_LOADTEST_DETAIL_TEST_CASE CATCH_TEST_CASE
#define MCP_LOADTEST_DETAIL_CASE_FAILED CATCH_FAIL_CHECK
#else
#define MCP_LOADTEST_DETAIL_CATCH_INFO INFO
#define MCP_LOADTEST_DETAIL_CATCH_CHECK CHECK
#define MCP_LOADTEST_DETAIL_CATCH_REQUIRE REQUIRE
#define MCP_LOADTEST_DETAIL_TEST_CASE TEST_CASE
#define MCP_LOADTEST_DETAIL_CASE_FAILED FAIL_CHECK
#endif

// The adapter's primitives (see detail/testing/assertion_macros.hpp). INFO is scoped:
// it shows on the assertion that follows it. Catch2 v2 assertions are not
// thread-safe, which is fine: case bodies run on the test's own thread.
#define MCP_LOADTEST_DETAIL_ASSERT(KIND, cond, message)                                             \
    do {                                                                                            \
        MCP_LOADTEST_DETAIL_CATCH_INFO(message);                                                    \
        MCP_LOADTEST_DETAIL_CATCH_##KIND(cond);                                                     \
    } while (false)

namespace mcp_loadtest::detail {
/// TEST_CASE("name", "[tags]")'s name (Catch2 names an unnamed case itself).
inline std::string catch2_case_name(const char* name = "", const char* = "") { return name ? name : ""; }
}  // namespace mcp_loadtest::detail
#define MCP_LOADTEST_DETAIL_FRAMEWORK "catch2"
#define MCP_LOADTEST_DETAIL_CASE_NAME(...) ::mcp_loadtest::detail::catch2_case_name(__VA_ARGS__)

#include <mcp_loadtest/detail/testing/assertion_macros.hpp>
