// The expected-failure cases (expected_failures_cases.hpp) under GoogleTest,
// then two of its own: failures of GoogleTest's EXPECT_* inside a coroutine,
// and a fatal failure that must stop the coroutine (check_junit.py also checks
// that no failure is counted twice or reported after one that stops the case).
#include <gtest/gtest.h>
#include <mcp_loadtest/gtest.hpp>

// The shared cases are named by strings and use doctest/Catch2's CHECK and
// REQUIRE. GoogleTest names a test with identifiers: each shared case becomes
// ExpectedFailures.line<N>, N the line of its MCP_LOADTEST_CASE, which is how
// check_junit.py finds it.
#undef MCP_LOADTEST_CASE
#undef MCP_LOADTEST_CASE_LIMIT
#define MCP_LOADTEST_CASE(name) MCP_LOADTEST_TEST(ExpectedFailures, MCP_LOADTEST_DETAIL_CAT(line, __LINE__))
#define MCP_LOADTEST_CASE_LIMIT(limit, name) \
    MCP_LOADTEST_TEST_LIMIT(limit, ExpectedFailures, MCP_LOADTEST_DETAIL_CAT(line, __LINE__))
#define CHECK(...) EXPECT_TRUE(__VA_ARGS__)
#define REQUIRE(...) MCP_ASSERT(__VA_ARGS__)

#include "expected_failures_cases.hpp"
#include "support/leak_check.hpp"

MCP_LOADTEST_TEST(GoogleTest, ExpectAndAssertInsideTheCoroutine) {
    auto server = mlt_test::fixture("echo_server.py");
    auto s = co_await mlt::connect(server);
    auto r = co_await s.call_tool("echo", mlt::args("message", "a"));
    EXPECT_EQ(r.text(), "b");  // EXPECT-FAIL
    EXPECT_TRUE(r.ok());
    MCP_ASSERT(r.text() == "b") << "echo answered " << r.text();  // EXPECT-FAIL
    ADD_FAILURE() << "MCP_ASSERT did not stop the case";
    co_await s.close();
}

MCP_LOADTEST_TEST(GoogleTest, RequireOkStopsTheCase) {
    auto server = mlt_test::fixture("error_server.py");
    auto s = co_await mlt::connect(server);
    MCP_REQUIRE_OK(co_await s.call_tool("error", mlt::args("code", -32000, "message", "backend down")));  // EXPECT-FAIL
    ADD_FAILURE() << "MCP_REQUIRE_OK did not stop the case";
    co_await s.close();
}

int main(int argc, char** argv) {
    const auto fds_before = mlt_test::open_fds();
    ::testing::InitGoogleTest(&argc, argv);
    const int rc = RUN_ALL_TESTS();
    return mlt_test::report_leaks(fds_before) > 0 ? 100 : rc;
}
