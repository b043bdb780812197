// Load tests and bug-class detectors, written as ordinary doctest cases.
//
// Each case drives a bundled fixture server; point `server` at your own.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/ceiling.hpp>
#include <mcp_loadtest/detectors.hpp>
#include <mcp_loadtest/run.hpp>

#include <cstdio>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

MCP_LOADTEST_CASE("sustained load meets SLOs") {
    mlt::stdio_server server{PYTHON, {FIXTURES "/echo_server.py"}};
    // GCC 12: build braced values in their own statements, not inside co_await.
    const mlt::mix calls{{"echo", {{"message", "AAPL"}}, 1.0}, {"add", {{"a", 1}, {"b", 2}}, 0.3}};
    const mlt::workload load = mlt::open_load{.rate = 200 /*calls/s*/, .duration = 3s};
    const mlt::thresholds slo{.p99 = 500ms, .error_rate = 0.01};
    auto report = co_await mlt::run(server, load, calls, slo);
    std::printf("%s", report.summary().c_str());
    MCP_REQUIRE_PASSED(report);  // on failure: each violated threshold, expected vs actual, and what it means
}

MCP_LOADTEST_CASE("no lazy-init deadlock") {
    mlt::stdio_server server{PYTHON, {FIXTURES "/echo_server.py"}};
    const auto args = mlt::args("message", "AAPL");
    auto probe = co_await mlt::deadlock_probe(server, "echo", args, {.concurrent = 20, .hang_threshold = 2s});
    std::printf("deadlock probe: %s: %s\n", std::string(mlt::to_string(probe.verdict)).c_str(), probe.explanation.c_str());
    MCP_REQUIRE_NO_DEADLOCK(probe);  // on failure: the method and the request ids that never answered
}

MCP_LOADTEST_CASE("the deadlock probe catches the lazy-init deadlock") {
    mlt::stdio_server server{PYTHON, {FIXTURES "/hang_on_first_call.py"}};
    const auto args = mlt::args("ticker", "AAPL");
    auto probe = co_await mlt::deadlock_probe(server, "get_market_data", args, {.concurrent = 20, .hang_threshold = 1s});
    std::printf("deadlock probe: %s\n", probe.explanation.c_str());
    // Detector reports get a run directory too (report.json, report.md, report.html), on request.
    const auto written = mlt::write_run_directory(probe);
    std::printf("reports in %s\n", written.path.string().c_str());
    CHECK(probe.verdict == mlt::probe_verdict::critical);
    CHECK(probe.deadlocked == 20);
}

MCP_LOADTEST_CASE("ramp to the breaking point, two server processes") {
    mlt::stdio_server server{PYTHON, {FIXTURES "/echo_server.py"}};
    // `sleep` holds the single-threaded server 10 ms per call: ~100 calls/s per process.
    const auto calls = mlt::mix::single("sleep", mlt::args("ms", 10));
    const mlt::workload load = mlt::ramp(mlt::staged_load::driver::rate, 50, 400, 4, 1s);
    mlt::run_options options;
    options.sessions = 2;
    options.breaking_p99 = 200ms;
    auto report = co_await mlt::run(server, load, calls, mlt::thresholds{}, options);
    std::printf("%s", report.summary().c_str());
    for (const auto& st : report.stages)
        if (st.duration_s > 0)
            std::printf("  %-8s %6.0f calls/s target: p99 %8.2f ms, %zu calls, %llu dropped\n", st.name.c_str(), st.target,
                        st.stats.latency.p99.count() / 1e6, static_cast<std::size_t>(st.stats.calls()),
                        static_cast<unsigned long long>(st.dropped));
    CHECK(report.breaking_stage.has_value());
}

MCP_LOADTEST_CASE("the highest rate that keeps p90 under 60 ms (ceiling search)") {
    // 4 worker threads, each call 20 ms: the server completes at most 200 calls/s.
    mlt::stdio_server server{PYTHON, {FIXTURES "/hol_server.py", "--workers", "4", "--slow-ms", "20"}};
    const auto calls = mlt::mix::single("slow");
    mlt::thresholds slo;
    slo.p90 = 60ms;
    const mlt::ceiling_options search{.start_rate = 100, .max_rate = 2000, .min_step = 500ms, .budget = 30s};
    auto ceiling = co_await mlt::find_ceiling(server, calls, slo, search);
    std::printf("%s", mlt::to_markdown(ceiling).c_str());
    MCP_CHECK_CEILING_AT_LEAST(ceiling, 100);  // on failure: why each rate up to 100/s failed
}

MCP_LOADTEST_CASE("identical concurrent calls agree (race check)") {
    mlt::stdio_server server{PYTHON, {FIXTURES "/race_server.py", "--fixed"}};
    auto race = co_await mlt::race_check(server, "get_config", mlt::json::object(), {.concurrent = 10});
    (void)mlt::write_run_directory(race);
    MCP_CHECK_NO_DIVERGENCE(race);
}

MCP_LOADTEST_CASE("any request in a mix: resources, prompts, completions") {
    mlt::stdio_server server{PYTHON, {FIXTURES "/echo_server.py"}};
    const mlt::json greet{{"type", "ref/prompt"}, {"name", "greet"}};
    const mlt::mix calls{{"echo", {{"message", "hi"}}, 1.0},
                         mlt::resource_read("fixture://r/1", 1.0),
                         mlt::prompt_get("greet", {{"name", "Ada"}}, 0.5),
                         mlt::completion_complete(greet, "name", "Al", 0.5),
                         mlt::method_call("resources/list", mlt::json::object(), 0.2)};
    const mlt::workload load = mlt::closed_load{.users = 4, .max_iterations = 2000};
    auto report = co_await mlt::run(server, load, calls);
    for (const auto& [key, stats] : report.per_tool)  // tools by name, other requests as "method name"
        std::printf("%-28s %5llu calls, p99 %.2f ms\n", key.c_str(), static_cast<unsigned long long>(stats.calls()),
                    std::chrono::duration<double, std::milli>(stats.latency.p99).count());
    MCP_REQUIRE_PASSED(report);
}

MCP_LOADTEST_CASE("progress: counted, timed, and its rules checked") {
    mlt::stdio_server server{PYTHON, {FIXTURES "/echo_server.py"}};
    // progress=true sends _meta.progressToken; progress_broken's notification comes after its reply.
    const mlt::mix calls{{.tool = "progress", .arguments = {{"steps", 5}}, .weight = 3.0, .progress = true},
                         {.tool = "progress_broken", .arguments = {{"rule", "after_result"}}, .progress = true}};
    // A late notification comes 50 ms after its reply: the run lasts long enough to see some.
    const mlt::workload load = mlt::closed_load{.users = 2, .duration = 500ms};
    auto report = co_await mlt::run(server, load, calls);
    std::printf("%s", report.summary().c_str());
    const auto& p = report.per_tool.at("progress").progress;
    std::printf("progress: %llu calls asked, %llu notifications, first after p50 %.3f ms\n",
                static_cast<unsigned long long>(p.asked), static_cast<unsigned long long>(p.notifications),
                std::chrono::duration<double, std::milli>(p.time_to_first.p50).count());
    CHECK(report.progress.after_result > 0);  // each one names its request id in report.progress.samples
}
