// Cases that MUST fail, shared by expected_failures_doctest.cpp and
// expected_failures_catch2.cpp (CHECK/REQUIRE mean the same in both). Each
// failure line is marked EXPECT-FAIL: check_junit.py runs each binary with its
// framework's JUnit reporter and verifies that every failure inside a coroutine
// is reported, counted, and attributed to the marked line; and that nothing leaked.
#pragma once

// doctest's INFO captures are types in an anonymous namespace; a coroutine
// frame defined in a header that holds one draws GCC's -Wsubobject-linkage.
// These cases live in a header only to be shared by two test files.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wsubobject-linkage"
#endif

#include <mcp_loadtest/detectors.hpp>
#include <mcp_loadtest/fuzz.hpp>
#include <mcp_loadtest/run.hpp>

#include "support/fixtures.hpp"

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

MCP_LOADTEST_CASE("check fails after an await") {
    auto server = mlt_test::fixture("echo_server.py");
    auto s = co_await mlt::connect(server);
    auto r = co_await s.call_tool("echo", mlt::args("message", "a"));
    CHECK(r.text() == "b");  // EXPECT-FAIL
    co_await s.close();
}

MCP_LOADTEST_CASE("require fails with a session open") {
    auto server = mlt_test::fixture("stubborn_server.py");
    server.stderr_to = mlt::stderr_mode::discard;
    auto s = co_await mlt::connect(server);
    auto r = co_await s.call_tool("echo", mlt::args("message", "a"));
    REQUIRE(r.text() == "b");  // EXPECT-FAIL
    co_await s.close();
}

MCP_LOADTEST_CASE("exception thrown inside the coroutine") {  // EXPECT-FAIL
    auto server = mlt_test::fixture("echo_server.py");
    auto s = co_await mlt::connect(server);
    throw std::runtime_error("boom from inside the coroutine");
}

MCP_LOADTEST_CASE_LIMIT(1s, "time limit exceeded") {  // EXPECT-FAIL
    auto server = mlt_test::fixture("hang_on_first_call.py");
    auto s = co_await mlt::connect(server);
    auto r = co_await s.call_tool("get_market_data", mlt::args("ticker", "X"), {.timeout = 3600s});
    CHECK(r.outcome == mlt::outcome::cancelled);  // the limit cancels the call; the case still fails
}

MCP_LOADTEST_CASE("check on a failed call names the call") {
    auto server = mlt_test::fixture("error_server.py");
    auto s = co_await mlt::connect(server);
    MCP_CHECK_OK(co_await s.call_tool("error", mlt::args("code", -32000, "message", "backend down")));  // EXPECT-FAIL
    co_await s.close();
}

MCP_LOADTEST_CASE("a load report that misses its SLO") {
    auto server = mlt_test::fixture("echo_server.py");
    const mlt::workload load = mlt::open_load{.rate = 50, .duration = 500ms};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    const mlt::thresholds slo{.p99 = 1ns};
    auto report = co_await mlt::run(server, load, calls, slo);
    MCP_CHECK_PASSED(report);  // EXPECT-FAIL
}

MCP_LOADTEST_CASE("a deadlocked server fails the no-deadlock check") {
    auto server = mlt_test::fixture("hang_on_first_call.py");
    const auto args = mlt::args("ticker", "X");
    auto probe = co_await mlt::deadlock_probe(server, "get_market_data", args, {.concurrent = 3, .hang_threshold = 300ms});
    MCP_CHECK_NO_DEADLOCK(probe);  // EXPECT-FAIL
}

MCP_LOADTEST_CASE("a fuzz campaign that crashes the server is not clean") {
    auto server = mlt_test::fixture("fragile_server.py");
    server.stderr_to = mlt::stderr_mode::discard;
    auto report = co_await mlt::fuzz(server, {.max_inputs = 16, .schema_mutations = false});
    MCP_CHECK_FUZZ_CLEAN(report);  // EXPECT-FAIL
}

MCP_LOADTEST_CASE("coverage below its minimum names the tools never called") {
    auto server = mlt_test::fixture("many_tools_server.py");
    auto s = co_await mlt::connect(server);
    co_await s.list_tools();
    co_await s.call_tool("echo", mlt::args("message", "a"));
    MCP_CHECK_COVERAGE(s.coverage(), 1.0);  // EXPECT-FAIL
    co_await s.close();
}

MCP_LOADTEST_CASE("each bug-class detector's macro fails with its verdict sentence") {
    // Reports are plain structs: a verdict set by hand is enough to check that each
    // macro reaches the framework (the detectors themselves are tested in test_detectors).
    mlt::cross_talk_report cross_talk;
    cross_talk.verdict = mlt::cross_talk_verdict::cross_talk;
    MCP_CHECK_NO_CROSS_TALK(cross_talk);  // EXPECT-FAIL
    mlt::head_of_line_report head_of_line;
    head_of_line.verdict = mlt::head_of_line_verdict::blocked;
    MCP_CHECK_NO_HEAD_OF_LINE_BLOCKING(head_of_line);  // EXPECT-FAIL
    mlt::cancellation_report cancellation;
    cancellation.verdict = mlt::cancellation_verdict::critical;
    MCP_CHECK_CANCELLATION_SAFE(cancellation);  // EXPECT-FAIL
    mlt::payload_sweep_report payload;
    payload.verdict = mlt::payload_verdict::limit_found;
    MCP_CHECK_NO_PAYLOAD_LIMIT(payload);  // EXPECT-FAIL
    mlt::churn_report churn;
    churn.verdict = mlt::churn_verdict::leaves_processes;
    MCP_CHECK_CLEAN_CHURN(churn);  // EXPECT-FAIL
    mlt::cross_talk_report clean;  // a default report has nothing against it
    MCP_CHECK_NO_CROSS_TALK(clean);
    co_return;
}

MCP_LOADTEST_CASE("a passing case stays passing") {
    auto server = mlt_test::fixture("echo_server.py");
    auto s = co_await mlt::connect(server);
    MCP_CHECK_OK(co_await s.ping());
    co_await s.close();
}
