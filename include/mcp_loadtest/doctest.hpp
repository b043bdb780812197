// doctest integration: MCP_LOADTEST_CASE and check macros.
//
//     #include <doctest/doctest.h>
//     #include <mcp_loadtest/doctest.hpp>
//
//     MCP_LOADTEST_CASE("first tools/call answers") {
//         const mcp_loadtest::stdio_server server{"python3", {"server.py"}};
//         auto s = co_await mcp_loadtest::connect(server);
//         MCP_CHECK_OK(co_await s.call_tool("echo", mcp_loadtest::args("message", "hi")));
//     }
#pragma once

#ifndef DOCTEST_LIBRARY_INCLUDED
#error "include <doctest/doctest.h> before <mcp_loadtest/doctest.hpp>"
#endif

#include <mcp_loadtest/detail/testing/case_runner.hpp>
// Only the session layer (stdio): load tests add <mcp_loadtest/run.hpp>,
// detectors <mcp_loadtest/detectors.hpp>, network servers their transport's
// header, so a test file pays the compile time of what it uses.
#include <mcp_loadtest/process_audit.hpp>
#include <mcp_loadtest/session.hpp>
#include <mcp_loadtest/when_all.hpp>

// The adapter's primitives (see detail/testing/assertion_macros.hpp). Both go through
// doctest's assertion result object: a failure from ADD_FAIL_CHECK_AT would be
// missing from the JUnit output's counts.
#define MCP_LOADTEST_DETAIL_ASSERT(KIND, cond, message) DOCTEST_##KIND##_MESSAGE(cond, message)
#define MCP_LOADTEST_DETAIL_TEST_CASE DOCTEST_TEST_CASE
#define MCP_LOADTEST_DETAIL_CASE_FAILED(message) DOCTEST_CHECK_MESSAGE(false, message)
// The case's name, read the way doctest reads it: its decorators applied to a TestCase.
#define MCP_LOADTEST_DETAIL_FRAMEWORK "doctest"
#ifdef DOCTEST_CONFIG_DISABLE
#define MCP_LOADTEST_DETAIL_CASE_NAME(...) std::string()
#else
#define MCP_LOADTEST_DETAIL_CASE_NAME(...)                                                          \
    std::string((::doctest::detail::TestCase(nullptr, __FILE__, __LINE__,                          \
                                             doctest_detail_test_suite_ns::getCurrentTestSuite()) * \
                 __VA_ARGS__)                                                                       \
                    .m_name)
#endif

#include <mcp_loadtest/detail/testing/assertion_macros.hpp>
