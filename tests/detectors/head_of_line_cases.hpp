// Cases for the head-of-line blocking check (docs/detectors.md#head-of-line-blocking),
// included by tests/test_detectors.cpp: fixtures/hol_server.py queues tools/call
// to --workers N threads (--healthy: a thread per call), and server-everything.
#pragma once

#include <mcp_loadtest/detectors/head_of_line.hpp>

#include <stdexcept>

// The case bodies are coroutines defined in a header: GCC warns that their
// frames hold doctest's unnamed types. Harmless here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsubobject-linkage"
#endif

namespace head_of_line_cases {

inline mlt::head_of_line_call fast() { return {"fast", mlt::json::object()}; }
/// 200 ms: long enough to tell from a fast call on a busy machine, short enough for a quick sweep.
inline mlt::head_of_line_call slow(int ms = 200) { return {"slow", mlt::args("ms", ms)}; }

inline const mlt::head_of_line_sweep* find_sweep(const mlt::head_of_line_report& r, const std::string& mode) {
    for (const auto& s : r.sweeps)
        if (s.mode == mode) return &s;
    return nullptr;
}

}  // namespace head_of_line_cases

MCP_LOADTEST_CASE("head-of-line: one worker blocks the fast call behind a single slow call") {
    auto server = fixture("hol_server.py", {"--workers", "1"});
    const auto fast = head_of_line_cases::fast();
    const auto slow = head_of_line_cases::slow();
    auto report = co_await mlt::head_of_line_check(server, fast, slow, {.across_sessions = false});
    CHECK(report.verdict == mlt::head_of_line_verdict::blocked);
    CHECK_FALSE(report.passed());
    CHECK(report.blocking_starts_at_k == 1);
    // The evidence: fast alone, slow once a slow call is in flight.
    CHECK(report.fast_alone.samples.size() == 30);
    CHECK(report.slow_alone.samples.size() == 3);
    CHECK(report.slow_alone.p50 >= 200ms);
    CHECK(report.fast_alone.p90 <= report.fast_limit);
    CHECK(report.blocked_at == report.slow_alone.p50 / 2);
    REQUIRE(report.sweeps.size() == 1);
    const auto& sweep = report.sweeps[0];
    CHECK(sweep.mode == "one session");
    REQUIRE(sweep.steps.size() == 1);  // stopped at the first blocked k
    CHECK(sweep.steps[0].k == 1);
    CHECK(sweep.steps[0].blocked);
    CHECK(sweep.steps[0].slow.samples.size() == 1);
    CHECK(sweep.steps[0].fast.samples.size() == 10);
    CHECK(sweep.steps[0].fast.p90 >= report.blocked_at);
    CHECK(sweep.steps[0].fast.min >= report.slow_alone.p50 / 4);  // every one of them waited
    const std::string failure = mlt::detail::detector_failure(report);
    CHECK(failure.rfind("HEAD-OF-LINE BLOCKING: on one session, 'fast' took p90", 0) == 0);
    CHECK(failure.find("Blocking starts at k = 1:") != std::string::npos);

    const mlt::json j = report;
    const auto back = j.get<mlt::head_of_line_report>();
    CHECK(mlt::json(back) == j);
    CHECK(back.sweeps[0].steps[0].fast.samples == sweep.steps[0].fast.samples);
    CHECK(back.blocked_at == report.blocked_at);
}

MCP_LOADTEST_CASE("head-of-line: a pool of two blocks only from k = 2, and never across sessions") {
    auto server = fixture("hol_server.py", {"--workers", "2"});
    const auto fast = head_of_line_cases::fast();
    const auto slow = head_of_line_cases::slow();
    auto report = co_await mlt::head_of_line_check(server, fast, slow, {.sweep = {1, 2, 4}});
    CHECK(report.verdict == mlt::head_of_line_verdict::blocked);
    CHECK(report.blocking_starts_at_k == 2);
    const auto* one = head_of_line_cases::find_sweep(report, "one session");
    const auto* across = head_of_line_cases::find_sweep(report, "across sessions");
    REQUIRE(one != nullptr);
    REQUIRE(across != nullptr);
    CHECK(one->blocking_starts_at_k == 2);
    REQUIRE(one->steps.size() == 2);
    CHECK_FALSE(one->steps[0].blocked);  // k = 1: the second worker was free
    CHECK(one->steps[0].fast.p90 < report.blocked_at);
    CHECK(one->steps[1].blocked);
    // Each stdio session is its own process: slow calls on the other one never block.
    CHECK(across->blocking_starts_at_k == 0);
    REQUIRE(across->steps.size() == 3);
    CHECK(across->steps[2].k == 4);
    for (const auto& step : across->steps) CHECK_FALSE(step.blocked);
    const std::string sentence = report.verdict_sentence();
    CHECK(sentence.find("Blocking starts at k = 2, which points to a pool of 2 workers:") != std::string::npos);
    CHECK(sentence.find("not blocked across sessions up to k = 4;") != std::string::npos);
}

MCP_LOADTEST_CASE("head-of-line: a thread per call keeps the fast call fast at every k") {
    auto server = fixture("hol_server.py", {"--healthy"});
    const auto fast = head_of_line_cases::fast();
    const auto slow = head_of_line_cases::slow();
    auto report = co_await mlt::head_of_line_check(server, fast, slow);
    MCP_CHECK_NO_HEAD_OF_LINE_BLOCKING(report);
    CHECK(report.verdict == mlt::head_of_line_verdict::not_blocked);
    CHECK(report.blocking_starts_at_k == 0);
    REQUIRE(report.sweeps.size() == 2);
    for (const auto& sweep : report.sweeps) {
        REQUIRE(sweep.steps.size() == 4);
        CHECK(sweep.steps[3].k == 8);
        CHECK(sweep.steps[3].slow.samples.size() == 8);
        for (const auto& step : sweep.steps) CHECK(step.fast.p90 < report.blocked_at);
    }
    CHECK(report.verdict_sentence().rfind("no head-of-line blocking: 'fast' stayed fast with up to 8 'slow' calls", 0) == 0);
}

MCP_LOADTEST_CASE("head-of-line: a fast call that is not fast alone is indeterminate, bad options are rejected") {
    auto server = fixture("hol_server.py", {"--healthy"});
    const auto not_fast = head_of_line_cases::slow(60);
    const auto slow = head_of_line_cases::slow(100);
    auto report = co_await mlt::head_of_line_check(server, not_fast, slow, {.fast_samples = 3, .slow_samples = 2});
    CHECK(report.verdict == mlt::head_of_line_verdict::indeterminate);
    CHECK(report.passed());
    CHECK(report.sweeps.empty());
    CHECK(report.reason.find("is not fast next to") != std::string::npos);
    MCP_CHECK_NO_HEAD_OF_LINE_BLOCKING(report);

    const mlt::head_of_line_call missing{"no_such_tool", mlt::json::object()};
    auto failed = co_await mlt::head_of_line_check(server, missing, slow, {.fast_samples = 2, .slow_samples = 1});
    CHECK(failed.verdict == mlt::head_of_line_verdict::indeterminate);
    CHECK(failed.fast_alone.failed == 2);
    CHECK(failed.reason.find("failed when made alone") != std::string::npos);

    const auto fast = head_of_line_cases::fast();
    CHECK_THROWS_AS((void)mlt::head_of_line_check(server, fast, slow, {.sweep = {2, 1}}), std::invalid_argument);
    CHECK_THROWS_AS((void)mlt::head_of_line_check(server, fast, slow, {.one_session = false, .across_sessions = false}),
                    std::invalid_argument);
    const mlt::head_of_line_call bad{"fast", mlt::json::array()};
    CHECK_THROWS_AS((void)mlt::head_of_line_check(server, bad, slow), std::invalid_argument);
}

MCP_LOADTEST_CASE("head-of-line: server-everything answers echo during trigger-long-running-operation" *
                  doctest::skip(!mlt_test::have_everything())) {
    auto everything = mlt_test::everything();
    const mlt::head_of_line_call echo{"echo", mlt::args("message", "ping")};
    // duration is in seconds: one step of 0.2 s.
    const mlt::head_of_line_call long_op{"trigger-long-running-operation", mlt::args("duration", 0.2, "steps", 1)};
    auto report = co_await mlt::head_of_line_check(everything, echo, long_op);
    MCP_CHECK_NO_HEAD_OF_LINE_BLOCKING(report);
    CHECK(report.verdict == mlt::head_of_line_verdict::not_blocked);
    CHECK(report.slow_alone.p50 >= 200ms);
    CHECK(report.sweeps.size() == 2);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
