// Cases for load_paths (included by tests/test_detectors.cpp): paths of run()
// and the probe that existed without a test: dropped arrivals, the spike() and
// soak() shapes, a generator-bound run, thread and fd leak verdicts on a real
// fixture, probe_options::sessions > 1, per-tool thresholds on called tools.
#pragma once

#include <mcp_loadtest/detectors/deadlock_probe.hpp>
#include <mcp_loadtest/run.hpp>

#include <algorithm>
#include <set>
#include <thread>

// The case bodies are coroutines defined in a header: GCC warns that their
// frames hold doctest's (and the lambdas') unnamed types. Harmless here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsubobject-linkage"
#endif

namespace load_paths_test {

inline mlt::run_options quick() {
    mlt::run_options o;
    o.sample_interval = 100ms;
    o.call.timeout = 5s;
    return o;
}

inline bool has_violation(const mlt::load_report& r, const std::string& metric) {
    return std::any_of(r.violations.begin(), r.violations.end(), [&](const auto& v) { return v.metric == metric; });
}

inline const mlt::leak_analysis* leak_of(const mlt::load_report& r, const std::string& resource) {
    if (r.processes.empty()) return nullptr;
    for (const auto& l : r.processes.front().leaks)
        if (l.resource == resource) return &l;
    return nullptr;
}

/// A scenario body that blocks the test's event loop for 100 ms on every 10th
/// iteration (a stand-in for a generator doing too much work per call).
struct stalling_body {
    asio::awaitable<void> operator()(mlt::session& s, mlt::iteration& it) const {
        if (it.index() % 10 == 0) std::this_thread::sleep_for(100ms);
        co_await it.measure("ping", s.ping());
    }
};

}  // namespace load_paths_test

MCP_LOADTEST_CASE("open model: arrivals beyond max_in_flight are dropped, counted and judged") {
    // Each call takes 300 ms and at most 2 may be in flight: of 100 arrivals
    // (100/s for 1 s) only about 8 can start.
    auto server = fixture("slow_server.py");
    const mlt::workload load = mlt::open_load{.rate = 100, .duration = 1s, .max_in_flight = 2};
    const auto calls = mlt::mix::single("slow", mlt::args("ms", 300));
    const mlt::thresholds none_dropped{.max_dropped = 0};
    auto report = co_await mlt::run(server, load, calls, none_dropped, load_paths_test::quick());
    INFO(report.summary());
    CHECK(report.iterations_started + report.dropped == 100);
    CHECK(report.dropped >= 70);
    CHECK(report.iterations_started >= 2);
    CHECK(report.overall.outcomes[mlt::outcome::ok] == report.iterations_started);
    CHECK(load_paths_test::has_violation(report, "dropped"));
    CHECK_FALSE(report.passed);
}

MCP_LOADTEST_CASE("spike(): baseline, burst and recovery stages, the burst carrying the load") {
    auto server = fixture("echo_server.py");
    const mlt::workload load = mlt::spike(mlt::staged_load::driver::rate, 20, 120, 500ms, 500ms, 500ms);
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    const mlt::thresholds none;
    auto report = co_await mlt::run(server, load, calls, none, load_paths_test::quick());
    INFO(report.summary());
    CHECK(report.workload == "staged_rate");
    REQUIRE(report.stages.size() == 5);
    CHECK(report.stages[0].name == "baseline");
    CHECK(report.stages[2].name == "burst");
    CHECK(report.stages[4].name == "recovery");
    const auto baseline = report.stages[0].stats.calls(), burst = report.stages[2].stats.calls(),
               recovery = report.stages[4].stats.calls();
    // Intended: 10, 60 and 10 arrivals.
    CHECK(baseline >= 5);
    CHECK(burst >= 4 * baseline);
    CHECK(recovery * 3 <= burst);
    CHECK(report.stages[2].target == 120);
    CHECK(report.overall.outcomes[mlt::outcome::ok] == baseline + burst + recovery);
    CHECK(report.dropped == 0);
    MCP_CHECK_PASSED(report);
}

MCP_LOADTEST_CASE("soak(): one constant stage of virtual users, the server sampled throughout") {
    auto server = fixture("echo_server.py");
    const mlt::workload load = mlt::soak(mlt::staged_load::driver::users, 2, 1500ms);
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    const mlt::thresholds no_errors{.error_rate = 0.0};
    auto report = co_await mlt::run(server, load, calls, no_errors, load_paths_test::quick());
    INFO(report.summary());
    CHECK(report.workload == "staged_users");
    REQUIRE(report.stages.size() == 1);
    CHECK(report.stages[0].name == "soak");
    CHECK(report.stages[0].target == 2);
    CHECK(report.stages[0].stats.calls() == report.overall.calls());
    CHECK(report.overall.calls() > 50);
    CHECK(report.duration_s >= 1.4);
    REQUIRE(report.processes.size() == 1);
    CHECK(report.processes[0].samples.size() >= 8);
    MCP_CHECK_NO_LEAK(report);
    MCP_CHECK_PASSED(report);
}

MCP_LOADTEST_CASE("a generator that cannot keep the arrival rate is flagged as the bottleneck") {
    // The body itself stalls the test's event loop 100 ms every 10th iteration:
    // the sends after each stall leave ~100 ms late, far above max(10 ms, 2 x 20 ms).
    auto server = fixture("echo_server.py");
    const mlt::workload load = mlt::open_load{.rate = 50, .duration = 1s};
    const mlt::iteration_body body = load_paths_test::stalling_body{};
    const mlt::thresholds none;
    auto report = co_await mlt::run(server, load, body, none, load_paths_test::quick());
    INFO(report.summary());
    INFO(report.generator.explanation);
    CHECK(report.generator.saturated);
    CHECK(report.generator.send_lag.p99 >= 50ms);
    CHECK(report.generator.late_sends >= 5);
    CHECK(report.generator.explanation.find("could not keep the arrival rate") != std::string::npos);
}

MCP_LOADTEST_CASE("leak detection: threads and fds leaked per call are each a leak, a clean server is not") {
    auto options = load_paths_test::quick();
    options.sample_interval = 50ms;
    options.leak.warmup = 300ms;
    options.leak.thread_growth = 10;
    options.leak.fd_growth = 10;
    const mlt::workload load = mlt::open_load{.rate = 50, .duration = 2s};  // 100 calls: 100 threads or fds
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    const mlt::thresholds objectives{.fd_growth = 10, .thread_growth = 10};

    auto threads = fixture("leak_server.py", {"--leak", "threads"});
    auto thread_report = co_await mlt::run(threads, load, calls, objectives, options);
    INFO(thread_report.summary());
    const auto* thread_leak = load_paths_test::leak_of(thread_report, "threads");
    REQUIRE(thread_leak != nullptr);
    INFO(thread_leak->explanation);
    CHECK(thread_leak->verdict == mlt::leak_verdict::leak);
    CHECK(thread_leak->predicted_growth > 30);
    CHECK(load_paths_test::leak_of(thread_report, "open_fds")->verdict == mlt::leak_verdict::no_leak);
    CHECK(mlt::detail::no_leak_failure(thread_report).find("threads") != std::string::npos);
    CHECK_FALSE(thread_report.passed);

    auto fds = fixture("leak_server.py", {"--leak", "fds"});
    auto fd_report = co_await mlt::run(fds, load, calls, objectives, options);
    INFO(fd_report.summary());
    const auto* fd_leak = load_paths_test::leak_of(fd_report, "open_fds");
    REQUIRE(fd_leak != nullptr);
    INFO(fd_leak->explanation);
    CHECK(fd_leak->verdict == mlt::leak_verdict::leak);
    CHECK(fd_leak->predicted_growth > 30);
    CHECK(load_paths_test::leak_of(fd_report, "threads")->verdict == mlt::leak_verdict::no_leak);
    CHECK(mlt::detail::no_leak_failure(fd_report).find("open_fds") != std::string::npos);
    CHECK_FALSE(fd_report.passed);

    auto clean = fixture("leak_server.py", {"--kb-per-call", "0"});
    auto clean_report = co_await mlt::run(clean, load, calls, objectives, options);
    MCP_CHECK_NO_LEAK(clean_report);
    MCP_CHECK_PASSED(clean_report);
}

MCP_LOADTEST_CASE("deadlock probe over several sessions: every server gets its burst") {
    auto server = fixture("echo_server.py");
    const auto args = mlt::args("message", "x");
    auto probe = co_await mlt::deadlock_probe(server, "echo", args, mlt::probe_options{.concurrent = 5, .hang_threshold = 2s, .sessions = 3});
    MCP_CHECK_NO_DEADLOCK(probe);
    CHECK(probe.calls.size() == 15);
    CHECK(probe.ok == 15);
    std::set<std::size_t> sessions;
    std::set<std::uint64_t> ids_per_session0;
    for (const auto& c : probe.calls) {
        sessions.insert(c.session);
        if (c.session == 0) ids_per_session0.insert(c.request_id);
    }
    CHECK(sessions == std::set<std::size_t>{0, 1, 2});
    CHECK(ids_per_session0.size() == 5);
}

MCP_LOADTEST_CASE("per-tool thresholds on called tools: one passes, one fails with its own metric") {
    auto server = fixture("echo_server.py");
    const mlt::mix calls{{"echo", {{"message", "x"}}, 1.0}, {"fail", mlt::json::object(), 1.0}};
    const mlt::workload load = mlt::closed_load{.users = 1, .duration = 2s, .max_iterations = 40};
    mlt::thresholds objectives;
    objectives.per_tool["echo"] = {.p99 = 5s, .error_rate = 0.0};
    objectives.per_tool["fail"] = {.error_rate = 0.0};  // `fail` answers isError: true every time
    auto report = co_await mlt::run(server, load, calls, objectives, load_paths_test::quick());
    INFO(report.summary());
    REQUIRE(report.per_tool.count("echo") == 1);
    REQUIRE(report.per_tool.count("fail") == 1);
    CHECK(load_paths_test::has_violation(report, "tool:fail:error_rate"));
    for (const auto& v : report.violations) CHECK(v.metric.rfind("tool:echo", 0) != 0);
    CHECK_FALSE(report.passed);

    mlt::thresholds echo_only;
    echo_only.per_tool["echo"] = {.p99 = 5s, .error_rate = 0.0};
    const auto echo = mlt::mix::single("echo", mlt::args("message", "x"));
    auto passing = co_await mlt::run(server, load, echo, echo_only, load_paths_test::quick());
    MCP_CHECK_PASSED(passing);
    echo_only.per_tool["echo"] = {.p50 = 1ns};  // no call is that fast: its own metric fails
    auto failing = co_await mlt::run(server, load, echo, echo_only, load_paths_test::quick());
    CHECK(load_paths_test::has_violation(failing, "tool:echo:p50"));
    CHECK_FALSE(failing.passed);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
