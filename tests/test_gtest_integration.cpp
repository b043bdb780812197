// The same user-facing API under GoogleTest: MCP_LOADTEST_TEST bodies are
// coroutines; GoogleTest's EXPECT_* work in them, MCP_ASSERT replaces ASSERT_*.
// The servers are the C++ fixture (fixtures/native), so the same cases run on
// Linux and on Windows (under Wine).
#include <gtest/gtest.h>
#include <mcp_loadtest/gtest.hpp>
#include <mcp_loadtest/detectors.hpp>
#include <mcp_loadtest/run.hpp>

#include "support/fixtures.hpp"
#include "support/leak_check.hpp"

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;
using mlt_test::native_fixture;

MCP_LOADTEST_TEST(GoogleTest, FirstToolsCallAnswers) {
    auto server = native_fixture();
    auto session = co_await mlt::connect(server);
    auto tools = co_await session.list_tools();
    MCP_ASSERT(tools.ok());
    EXPECT_NE(tools.find("echo"), nullptr);
    auto reply = co_await session.call_tool("echo", mlt::args("message", "gtest"), {.timeout = 5s});
    MCP_CHECK_OK(reply);
    EXPECT_EQ(reply.text(), "gtest");
    auto closed = co_await session.close();
    EXPECT_TRUE(closed.graceful());
}

MCP_LOADTEST_TEST(GoogleTest, FirstCallDeadlockEndsAsHangWithinItsTimeout) {
    auto server = native_fixture({"--hang-on-call"});  // tools/call never answered, ping still
    auto session = co_await mlt::connect(server);
    auto reply = co_await session.call_tool("echo", mlt::args("message", "never answered"), {.timeout = 300ms});
    MCP_CHECK_OUTCOME(reply, mlt::outcome::hang);
    co_await session.close();
}

MCP_LOADTEST_TEST_LIMIT(60s, GoogleTest, LoadReportsAndDetectorsWithTheAssertionMacros) {
    auto server = native_fixture();
    const mlt::workload load = mlt::open_load{.rate = 100, .duration = 1s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    const mlt::thresholds slo{.p99 = 1s, .error_rate = 0.0};
    auto report = co_await mlt::run(server, load, calls, slo);
    MCP_REQUIRE_PASSED(report);
    MCP_CHECK_NO_LEAK(report);
    MCP_CHECK_SLO(report, report.overall.calls() >= 90);
    const auto args = mlt::args("message", "x");
    auto probe = co_await mlt::deadlock_probe(server, "echo", args, {.concurrent = 10, .hang_threshold = 2s});
    MCP_REQUIRE_NO_DEADLOCK(probe);
    auto race = co_await mlt::race_check(server, "echo", args, {.concurrent = 10});
    MCP_CHECK_NO_DIVERGENCE(race);
}

int main(int argc, char** argv) {
    mlt_test::binary_stdout();
    const auto fds_before = mlt_test::open_fds();
    ::testing::InitGoogleTest(&argc, argv);
    const int rc = RUN_ALL_TESTS();
    return mlt_test::report_leaks(fds_before) > 0 ? 1 : rc;
}
