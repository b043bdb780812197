// The same user-facing API under Catch2 v2, and v3 (built again against its
// amalgamated sources: tests/CMakeLists.txt): MCP_LOADTEST_CASE bodies are
// coroutines, assertions are Catch2's own. The servers are the C++ fixture
// (fixtures/native), so the same cases run on Linux and on Windows (under Wine).
#if defined(MCP_LOADTEST_TEST_CATCH2_V3)
#include <catch_amalgamated.hpp>
#else
#include <catch2/catch.hpp>
#endif
#include <mcp_loadtest/catch2.hpp>
#include <mcp_loadtest/detectors.hpp>
#include <mcp_loadtest/run.hpp>

#include "support/fixtures.hpp"

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;
using mlt_test::native_fixture;

MCP_LOADTEST_CASE("catch2: first tools/call answers", "[catch2]") {
    auto server = native_fixture();
    auto session = co_await mlt::connect(server);
    auto tools = co_await session.list_tools();
    REQUIRE(tools.ok());
    CHECK(tools.find("echo") != nullptr);
    auto reply = co_await session.call_tool("echo", mlt::args("message", "catch2"), {.timeout = 5s});
    MCP_CHECK_OK(reply);
    CHECK(reply.text() == "catch2");
    auto closed = co_await session.close();
    CHECK(closed.graceful());
}

MCP_LOADTEST_CASE("catch2: a first-call deadlock ends as a hang within its timeout", "[catch2]") {
    auto server = native_fixture({"--hang-on-call"});  // tools/call never answered, ping still
    auto session = co_await mlt::connect(server);
    auto reply = co_await session.call_tool("echo", mlt::args("message", "never answered"), {.timeout = 300ms});
    MCP_CHECK_OUTCOME(reply, mlt::outcome::hang);
    co_await session.close();
}

MCP_LOADTEST_CASE("catch2: in-flight calls end as crashes when the server exits", "[catch2]") {
    auto server = native_fixture({"--crash-after", "1"});  // the 1st call answered, exits on the 2nd
    server.stderr_to = mlt::stderr_mode::discard;
    auto session = co_await mlt::connect(server);
    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 5; ++i) calls.push_back(session.call_tool("echo", mlt::args("message", "x")));
    auto results = co_await mlt::when_all(std::move(calls));
    MCP_CHECK_OK(results[0]);
    for (int i = 1; i < 5; ++i) MCP_CHECK_OUTCOME(results[i], mlt::outcome::crash);
    co_await session.close();
}

MCP_LOADTEST_CASE("catch2: load reports and detectors with the assertion macros", "[catch2]") {
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
