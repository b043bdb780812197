// The load engine and the detectors, against real fixture servers: each
// detector must catch its fixture and stay quiet on a healthy one.
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/ceiling.hpp>
#include <mcp_loadtest/detectors.hpp>
#include <mcp_loadtest/report/markdown.hpp>
#include <mcp_loadtest/run.hpp>
#include <mcp_loadtest/sessions.hpp>

#include "support/fixtures.hpp"
#include "support/json_schema.hpp"

#include <mcp_loadtest/detail/engine/evaluate_thresholds.hpp>
#include <mcp_loadtest/detail/engine/trace_writer.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <sys/stat.h>
#include <thread>
#include <utility>
#include <vector>
#include <unistd.h>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;
using mlt_test::fixture;

namespace {

mlt::run_options quick_options() {
    mlt::run_options o;
    o.sample_interval = 100ms;
    o.call.timeout = 5s;
    return o;
}

// Records each iteration's intended start (offset from the run's first), then pings.
struct arrival_recorder {
    std::shared_ptr<std::vector<std::chrono::nanoseconds>> offsets = std::make_shared<std::vector<std::chrono::nanoseconds>>();
    std::shared_ptr<std::chrono::steady_clock::time_point> first = std::make_shared<std::chrono::steady_clock::time_point>();
    asio::awaitable<void> operator()(mlt::session& s, mlt::iteration& it) const {
        if (it.index() == 0) *first = it.origin().intended;
        offsets->push_back(it.origin().intended - *first);
        co_await it.measure("ping", s.ping());
    }
};

// The gaps between sorted arrival offsets: their mean and coefficient of variation.
std::pair<double, double> gap_mean_and_cv(std::vector<std::chrono::nanoseconds> at) {
    std::sort(at.begin(), at.end());
    std::vector<double> gaps;
    for (std::size_t i = 1; i < at.size(); ++i) gaps.push_back(std::chrono::duration<double>(at[i] - at[i - 1]).count());
    double mean = 0, var = 0;
    for (double g : gaps) mean += g;
    mean /= static_cast<double>(gaps.size());
    for (double g : gaps) var += (g - mean) * (g - mean);
    var /= static_cast<double>(gaps.size() - 1);
    return {mean, std::sqrt(var) / mean};
}

}  // namespace

// ---- workload models -------------------------------------------------------------

MCP_LOADTEST_CASE("open model: a server stalling 200 ms on 1 % of calls shows the stall in p99") {
    // Every 100th call stalls the (single-threaded) server for 200 ms; calls that
    // arrive meanwhile queue behind it. Measured from their intended send times,
    // about 1 % of calls are >= 200 ms and another 40 per stall wait 0..195 ms.
    auto server = fixture("tail_latency_server.py", {"--slow-every", "100", "--slow-ms", "200"});
    const mlt::workload load = mlt::open_load{.rate = 200, .duration = 3s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    auto report = co_await mlt::run(server, load, calls, mlt::thresholds{}, quick_options());
    INFO(report.summary());
    CHECK(report.workload == "open");
    CHECK(report.iterations_started == 600);  // every 5 ms for 3 s: 6 of them stall
    CHECK(report.dropped == 0);
    CHECK(report.overall.outcomes[mlt::outcome::ok] == report.overall.calls());
    // Exactly 1 % of calls stall for 200 ms: p99 is the fastest of them (the
    // percentile rule of histogram.hpp), measured from the intended send time.
    // The calls queued behind a stall are slow too (~195 ms, ~190 ms, ...).
    CHECK(report.overall.latency.p99 >= 200ms);
    CHECK(report.overall.latency.p999 >= 200ms);
    CHECK(report.overall.latency.p95 >= 100ms);  // 5 % of calls: the stalls and the 4 calls queued behind each
    CHECK(report.overall.latency.p50 < 50ms);
    CHECK(report.per_tool.at("echo").calls() == report.overall.calls());
    CHECK(report.per_method.at("tools/call").calls() == report.overall.calls());
    CHECK(report.per_method.at("initialize").calls() == 1);
    CHECK_FALSE(report.timeline.empty());
    CHECK(report.throughput_rps > 150);
    CHECK(report.passed);

    // The same server under a closed loop (one user, no think time) under-samples
    // the stall: only the stalled calls themselves are slow (coordinated omission).
    const mlt::workload closed = mlt::closed_load{.users = 1, .duration = 3s};
    auto closed_report = co_await mlt::run(server, closed, calls, mlt::thresholds{}, quick_options());
    INFO(closed_report.summary());
    CHECK(closed_report.overall.latency.p95 < 50ms);
}

MCP_LOADTEST_CASE("open model: Poisson arrivals have exponential gaps drawn from the seed, even ones do not vary") {
    auto server = fixture("echo_server.py");
    mlt::run_options options = quick_options();
    options.sample_interval = 0ms;
    const mlt::thresholds none;
    const auto run_with = [&](mlt::arrival_process arrivals, std::uint64_t seed)
        -> asio::awaitable<std::pair<mlt::load_report, std::vector<std::chrono::nanoseconds>>> {
        const mlt::workload load = mlt::open_load{.rate = 400, .duration = 2s, .arrivals = arrivals};
        const arrival_recorder recorder;
        const mlt::iteration_body body = recorder;
        mlt::run_options seeded = options;
        seeded.seed = seed;
        auto report = co_await mlt::run(server, load, body, none, seeded);
        co_return std::pair{std::move(report), *recorder.offsets};
    };
    auto [poisson, at] = co_await run_with(mlt::arrival_process::poisson, 7);
    INFO(poisson.summary());
    CHECK(poisson.workload_parameters.at("arrivals") == "poisson");
    CHECK(poisson.summary().find("open (Poisson arrivals) load") != std::string::npos);
    // 800 expected in 2 s at 400/s: a Poisson count's standard deviation is sqrt(800) = 28.
    CHECK(at.size() > 700);
    CHECK(at.size() < 900);
    const auto [mean, cv] = gap_mean_and_cv(at);
    CHECK(mean == doctest::Approx(1.0 / 400).epsilon(0.1));
    CHECK(cv > 0.85);  // exponential gaps: their standard deviation equals their mean
    CHECK(cv < 1.15);

    // The same seed, the same arrival times; another seed, others.
    auto [again, at_again] = co_await run_with(mlt::arrival_process::poisson, 7);
    std::sort(at.begin(), at.end());
    std::sort(at_again.begin(), at_again.end());
    CHECK(at == at_again);
    auto [other, at_other] = co_await run_with(mlt::arrival_process::poisson, 8);
    std::sort(at_other.begin(), at_other.end());
    CHECK(at_other != at);

    auto [even, at_even] = co_await run_with(mlt::arrival_process::even, 7);
    CHECK_FALSE(even.workload_parameters.contains("arrivals"));  // the default keeps the report's form
    CHECK(at_even.size() == 800);
    CHECK(gap_mean_and_cv(at_even).second < 0.01);
}

MCP_LOADTEST_CASE("issue example: sustained open load with a weighted mix meets its SLOs") {
    auto server = fixture("echo_server.py");
    const mlt::mix calls{{"echo", {{"message", "AAPL"}}, 1.0}, {"add", {{"a", 1}, {"b", 2}}, 0.3}};
    const mlt::workload load = mlt::open_load{.rate = 200, .duration = 2s};
    const mlt::thresholds slo{.p99 = 500ms, .error_rate = 0.01};
    auto report = co_await mlt::run(server, load, calls, slo);
    MCP_REQUIRE_PASSED(report);
    const double echo = static_cast<double>(report.per_tool.at("echo").calls());
    const double add = static_cast<double>(report.per_tool.at("add").calls());
    CHECK(add / (echo + add) == doctest::Approx(0.3 / 1.3).epsilon(0.25));
    // The generator kept the rate: its own CPU, and the median send lag (the p99 of a 2 s run
    // is a handful of sends, which a busy machine's scheduler alone can delay past 10 ms).
    INFO(report.generator.explanation);
    CHECK(report.generator.cpu_pct < 85.0);
    CHECK(report.generator.send_lag.p50 < 10ms);
    CHECK(report.generator.send_lag.count > 0);
}

MCP_LOADTEST_CASE("closed model over two server processes, each sampled") {
    auto server = fixture("echo_server.py");
    auto options = quick_options();
    options.sessions = 2;
    const mlt::workload load = mlt::closed_load{.users = 4, .duration = 1500ms, .think_time = 5ms};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    auto report = co_await mlt::run(server, load, calls, mlt::thresholds{.error_rate = 0.0}, options);
    MCP_CHECK_PASSED(report);
    CHECK(report.workload == "closed");
    CHECK(report.sessions == 2);
    REQUIRE(report.processes.size() == 2);
    CHECK(report.processes[0].pid != report.processes[1].pid);
    for (const auto& p : report.processes) {
        CHECK(p.samples.size() >= 5);
        CHECK(p.stats.peak_rss_mb > 1);
    }
    CHECK(report.per_method.at("initialize").calls() == 2);
    CHECK(report.overall.calls() > 100);
}

MCP_LOADTEST_CASE("staged ramp: the breaking point is the first stage whose p99 crosses the limit") {
    // `sleep` blocks the single-threaded fixture for 10 ms: capacity is about 100 calls/s.
    auto server = fixture("echo_server.py");
    auto options = quick_options();
    options.breaking_p99 = 150ms;
    const mlt::workload load = mlt::ramp(mlt::staged_load::driver::rate, 20, 180, 3, 1s);
    const auto calls = mlt::mix::single("sleep", mlt::args("ms", 10));
    auto report = co_await mlt::run(server, load, calls, mlt::thresholds{}, options);
    INFO(report.summary());
    CHECK(report.workload == "staged_rate");
    REQUIRE(report.stages.size() == 6);
    REQUIRE(report.breaking_stage.has_value());
    CHECK(*report.breaking_stage >= 3);  // not the 20 calls/s hold
    CHECK(report.stages[1].stats.latency.p99 < 150ms);
    CHECK(report.breaking_reason.find("p99") != std::string::npos);
}

MCP_LOADTEST_CASE("ceiling search: the rate found is within 10 % of a fixture's known capacity") {
    // 3 workers, each reply 20 ms: at most 150 calls/s, between the rates the growth tries (50,
    // 100, 200/s), so bisection finds it. Above it the queue grows for the whole step and the
    // server completes 150/s whatever is offered; below it every call takes 20 ms. The p90
    // objective is loose (a loaded machine starves the fixture for tens of ms): the achieved
    // rate (at least 95 % of the offered one, with even arrivals) is what finds the capacity.
    auto server = mlt_test::native_fixture({"--workers", "3", "--reply-ms", "20"});
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    mlt::thresholds slo;
    slo.p90 = 150ms;
    const mlt::ceiling_options search{
        .start_rate = 50, .max_rate = 5000, .min_step = 500ms, .budget = 30s, .min_achieved = 0.95};
    auto options = quick_options();
    const auto ceiling = co_await mlt::find_ceiling(server, calls, slo, search, options);
    INFO(mlt::to_markdown(ceiling));
    MESSAGE("ceiling " << ceiling.ceiling_rate << "/s, first bad " << ceiling.first_bad_rate << "/s, "
                       << ceiling.steps.size() << " steps in " << ceiling.took.count() / 1e9 << " s");
    CHECK(ceiling.verdict == mlt::ceiling_verdict::found);
    CHECK(ceiling.ceiling_rate >= 135);
    CHECK(ceiling.ceiling_rate <= 165);
    CHECK(ceiling.first_bad_rate > ceiling.ceiling_rate);
    CHECK(ceiling.first_bad_rate - ceiling.ceiling_rate <= 0.05 * ceiling.ceiling_rate);
    MCP_CHECK_CEILING_AT_LEAST(ceiling, 120);
    CHECK_FALSE(mlt::detail::ceiling_at_least_failure(ceiling, 1000).empty());
    // Grow from 100/s by doubling until a step fails, then bisect.
    REQUIRE(ceiling.steps.size() >= 4);
    CHECK(ceiling.steps[0].offered_rate == 50);
    CHECK(ceiling.steps[1].offered_rate == 100);
    CHECK(ceiling.steps[2].offered_rate == 200);
    CHECK_FALSE(ceiling.steps[2].passed);
    CHECK(ceiling.steps[0].phase == mlt::ceiling_phase::grow);
    CHECK(ceiling.steps.back().phase == mlt::ceiling_phase::bisect);
    CHECK(ceiling.strictest_percentile == 0.9);
    REQUIRE(ceiling.objectives.size() == 1);
    CHECK(ceiling.objectives[0] == "p90 <= 150 ms");
    for (const auto& step : ceiling.steps) {
        CHECK(step.required_calls == 100);  // 10 calls above p90
        CHECK(step.planned_s == doctest::Approx(std::max(0.5, 100 / step.offered_rate)));  // min_step, or 100 calls
        if (step.passed) {
            CHECK(step.reason.empty());
            CHECK(step.enough_calls());
            CHECK(step.achieved_rate >= 0.95 * step.offered_rate);
            CHECK(step.latency.p50 >= 20ms);
        } else {
            CHECK_FALSE(step.reason.empty());
        }
        if (step.offered_rate >= 200) {  // a third over capacity
            CHECK_FALSE(step.passed);
            CHECK(step.achieved_rate < 0.9 * step.offered_rate);
        }
    }
    const auto curve = ceiling.curve();
    CHECK(std::is_sorted(curve.begin(), curve.end(),
                         [](const auto& a, const auto& b) { return a.offered_rate < b.offered_rate; }));
    CHECK(ceiling.took < 30s);
    // Past the ceiling the server still completes what its 3 workers can: about 150/s.
    CHECK(ceiling.peak_achieved_rate > 120);
    CHECK(ceiling.peak_achieved_rate < 180);
    // The report as data and for people.
    const mlt::json j = ceiling;
    CHECK(j["schema"] == "mcp-loadtest/ceiling/v1");
    CHECK(j["verdict"] == "found");
    CHECK(j["steps"].size() == ceiling.steps.size());
    const auto back = j.get<mlt::ceiling_report>();
    CHECK(mlt::json(back) == j);
    const std::string md = mlt::to_markdown(ceiling);
    CHECK(md.find("Ceiling: " + mlt::detail::format_rate(ceiling.ceiling_rate) + " iterations/s (found)") != std::string::npos);
    CHECK(md.find("| offered/s | achieved/s |") != std::string::npos);
    const std::string html = mlt::to_html(ceiling);
    CHECK(html.find("Latency by offered rate") != std::string::npos);
    CHECK(html.find("<polyline") != std::string::npos);
    CHECK(html.find("<table id=\"steps\">") != std::string::npos);
}

MCP_LOADTEST_CASE("ceiling search: no rate passes, the budget ends a search, bad options are refused") {
    // Every call takes 100 ms against p90 <= 20 ms: each step fails at its first look.
    auto slow = mlt_test::native_fixture({"--delay-ms", "100"});
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    mlt::thresholds slo;
    slo.p90 = 20ms;
    auto options = quick_options();
    const mlt::ceiling_options down{.start_rate = 200, .min_rate = 50, .min_step = 500ms, .budget = 20s};
    const auto none = co_await mlt::find_ceiling(slow, calls, slo, down, options);
    INFO(mlt::to_markdown(none));
    CHECK(none.verdict == mlt::ceiling_verdict::not_reached);
    CHECK(none.ceiling_rate == 0);
    CHECK(none.first_bad_rate == 50);
    REQUIRE(none.steps.size() == 3);  // 200, 100, 50/s
    CHECK(none.steps[1].phase == mlt::ceiling_phase::descend);
    CHECK(none.steps[2].offered_rate == 50);
    for (const auto& step : none.steps) {
        CHECK(step.reason.rfind("p90 ", 0) == 0);
        CHECK(step.ended_early);  // judged at 50 calls, half the step
    }
    CHECK(none.took < 15s);
    CHECK(none.verdict_sentence().find("No rate met the objectives") != std::string::npos);
    const std::string text = mlt::detail::ceiling_at_least_failure(none, 50);
    CHECK(text.find("at 50/s: p90 ") != std::string::npos);

    // A healthy server, loose objectives and a budget for two steps of 0.5 s: a lower bound, and
    // the report says so.
    auto fast = mlt_test::native_fixture();
    mlt::thresholds loose;
    loose.p90 = 500ms;
    const mlt::ceiling_options short_budget{.start_rate = 200, .min_step = 500ms, .budget = 1200ms, .min_achieved = 0.5};
    const auto bound = co_await mlt::find_ceiling(fast, calls, loose, short_budget, options);
    INFO(mlt::to_markdown(bound));
    CHECK(bound.budget_exhausted);
    CHECK(bound.verdict == mlt::ceiling_verdict::lower_bound);
    CHECK(bound.ceiling_rate >= 200);
    CHECK(bound.steps.size() <= 2);
    CHECK(bound.verdict_sentence().find("budget") != std::string::npos);
    CHECK(bound.took < 10s);

    const auto refused = [&](mlt::thresholds t, mlt::ceiling_options o) -> std::string {
        try {
            mlt::detail::check_ceiling_arguments(t, o);
        } catch (const std::invalid_argument& e) {
            return e.what();
        }
        return "";
    };
    CHECK(refused(slo, {.growth = 1}).find("growth must be above 1") != std::string::npos);
    CHECK(refused(slo, {.start_rate = 100, .max_rate = 50}).find("max_rate (50) must be at least start_rate") !=
          std::string::npos);
    CHECK(refused(slo, {.resolution = 0}).find("resolution") != std::string::npos);
    CHECK(refused(slo, {.budget = 100ms}).find("raise the budget") != std::string::npos);
    mlt::thresholds leak = slo;
    leak.rss_growth_mb = 10;
    CHECK(refused(leak, {}).find("soak()") != std::string::npos);
    CHECK(refused(mlt::thresholds{}, {.min_achieved = 0}).find("nothing can fail a step") != std::string::npos);
    CHECK(refused(slo, {}).empty());
    // The step-length rule: 10 calls above the percentile.
    CHECK(mlt::detail::ceiling_required_calls(10, 0.99) == 1000);
    CHECK(mlt::detail::ceiling_required_calls(10, 0.5) == 20);
    CHECK(mlt::detail::ceiling_required_calls(10, 0.999) == 10000);
    const mlt::ceiling_options rule{};
    CHECK(mlt::detail::ceiling_step_length(rule, 1000, 100) == 10s);  // clamped to max_step
    CHECK(mlt::detail::ceiling_step_length(rule, 1000, 500) == 2s);
    CHECK(mlt::detail::ceiling_step_length(rule, 1000, 5000) == 1s);   // min_step
}

MCP_LOADTEST_CASE("patterns: a step uses the previous result, abort_pattern stops on failure") {
    auto server = fixture("echo_server.py");
    mlt::pattern chain{"echo-then-echo",
                       {mlt::step{.tool = "echo", .arguments = {{"message", "abc"}}},
                        mlt::step{.tool = "echo",
                                  .from_previous = [](const mlt::call_result& prev, std::uint64_t, mlt::load_rng&) {
                                      return mlt::json{{"message", prev.text() + "!"}};
                                  }}},
                       1.0};
    mlt::pattern failing{"fail-then-never",
                         {mlt::step{.tool = "fail", .on_error = mlt::on_step_error::abort_pattern},
                          mlt::step{.tool = "add", .arguments = {{"a", 1}, {"b", 1}}}},
                         1.0};
    const mlt::mix calls(std::vector<mlt::weighted_call>{}, {chain, failing});
    auto options = quick_options();
    options.trace_path = std::filesystem::temp_directory_path() / ("mlt-trace-" + std::to_string(::getpid()) + ".jsonl");
    // max_iterations ends the run; the duration is only a cap (at 1 s a loaded machine missed the 40).
    const mlt::workload load = mlt::closed_load{.users = 2, .duration = 10s, .max_iterations = 40};
    auto report = co_await mlt::run(server, load, calls, mlt::thresholds{}, options);
    CHECK(report.iterations_started == 40);
    CHECK(report.per_tool.count("add") == 0);  // never reached
    CHECK(report.per_tool.at("fail").outcomes[mlt::outcome::tool_error] == report.per_tool.at("fail").calls());
    // Every echo chain ran both steps: two echo calls per chain iteration.
    CHECK(report.per_tool.at("echo").calls() == 2 * (40 - report.per_tool.at("fail").calls()));

    // The trace: one JSON line per call and per process sample.
    std::ifstream trace(options.trace_path);
    std::string line;
    std::size_t calls_traced = 0, samples_traced = 0, failed_traced = 0;
    while (std::getline(trace, line)) {
        const auto j = mlt::json::parse(line);
        if (j["kind"] == "call") {
            ++calls_traced;
            // The documented fields (docs/load-testing.md#the-per-call-trace).
            for (const char* key : {"ts", "session", "iteration", "request_id", "method", "tool", "outcome",
                                    "duration_ms", "latency_ms"})
                CHECK_MESSAGE(j.contains(key), line);
            CHECK(j["method"] == "tools/call");
            if (j["outcome"] != "ok") {
                ++failed_traced;
                CHECK(j["tool"] == "fail");
                CHECK(j.contains("message"));
            }
        }
        if (j["kind"] == "process_sample") {
            ++samples_traced;
            for (const char* key : {"ts", "session", "pid", "rss_mb", "cpu_pct", "open_fds", "threads"})
                CHECK_MESSAGE(j.contains(key), line);
        }
    }
    CHECK(calls_traced == report.overall.calls());
    CHECK(failed_traced == report.per_tool.at("fail").calls());
    CHECK(samples_traced == report.processes.at(0).samples.size());
    std::filesystem::remove(options.trace_path);
}

MCP_LOADTEST_CASE("any request in a mix: resources/read, prompts/get, completion/complete and methods by name, in both eras") {
    // Every kind of request, weighted like tools and reported per tool as "method name".
    mlt::weighted_call any_resource = mlt::resource_read("", 1.0);  // named per call by its generated uri
    any_resource.generate = [](std::uint64_t i, mlt::load_rng&) {
        return mlt::json{{"uri", "fixture://r/" + std::to_string(2 + i % 2)}};
    };
    const mlt::json greet_ref{{"type", "ref/prompt"}, {"name", "greet"}};
    mlt::weighted_call greet = mlt::prompt_get("greet", {{"name", "Ada"}}, 1.0);
    greet.progress = true;  // its line carries the token after the era's _meta; the fixture sends none
    mlt::pattern browse{"list-then-read",
                        {mlt::step{.tool = "", .arguments = mlt::json::object(), .method = "resources/list"},
                         mlt::step{.from_previous = [](const mlt::call_result& listed, std::uint64_t, mlt::load_rng&) {
                                       return mlt::json{{"uri", listed.result()["resources"][0]["uri"]}};
                                   },
                                   .method = "resources/read"}},
                        1.0};
    const mlt::mix calls({{"echo", {{"message", "x"}}, 1.0},
                          mlt::resource_read("fixture://r/1", 1.0),
                          any_resource,
                          greet,
                          mlt::completion_complete(greet_ref, "name", "Al", 1.0),
                          mlt::method_call("prompts/list", mlt::json::object(), 1.0)},
                         {browse});
    auto options = quick_options();
    options.sample_interval = 0ms;
    for (const char* script : {"echo_server.py", "modern_server.py"}) {
        CAPTURE(script);
        auto server = fixture(script);
        const mlt::workload load = mlt::closed_load{.users = 3, .duration = 10s, .max_iterations = 140};
        auto report = co_await mlt::run(server, load, calls, mlt::thresholds{}, options);
        INFO(report.summary());
        CHECK(report.protocol_era == (std::string(script) == "echo_server.py" ? "legacy" : "modern"));
        CHECK(report.overall.outcomes.errors() == 0);
        CHECK(report.failures.empty());
        for (const char* key : {"echo", "resources/read fixture://r/1", "resources/read fixture://r/2",
                                "resources/read fixture://r/3", "prompts/get greet", "completion/complete greet",
                                "prompts/list", "resources/list"}) {
            CAPTURE(key);
            REQUIRE(report.per_tool.count(key) == 1);
            CHECK(report.per_tool.at(key).calls() > 0);
            CHECK(report.per_tool.at(key).outcomes[mlt::outcome::ok] == report.per_tool.at(key).calls());
        }
        // The pattern's reads and the mix's own go under the same keys; per method as before.
        CHECK(report.per_method.at("resources/read").calls() ==
              report.per_tool.at("resources/read fixture://r/1").calls() +
                  report.per_tool.at("resources/read fixture://r/2").calls() +
                  report.per_tool.at("resources/read fixture://r/3").calls());
        CHECK(report.per_method.at("completion/complete").calls() == report.per_tool.at("completion/complete greet").calls());
        CHECK(report.per_method.at("tools/call").calls() == report.per_tool.at("echo").calls());
        CHECK(report.per_tool.at("prompts/get greet").progress.asked == report.per_tool.at("prompts/get greet").calls());
        CHECK(report.per_tool.at("prompts/get greet").progress.answered == 0);
        CHECK(report.per_tool.at("echo").progress.empty());
        // The interval histograms are tagged the same way.
        const bool tagged = std::any_of(report.intervals.begin(), report.intervals.end(),
                                        [](const auto& i) { return i.tag == "prompts/get greet"; });
        CHECK(tagged);
        const std::string md = mlt::to_markdown(report);
        CHECK(md.find("| resources/read fixture://r/1 |") != std::string::npos);
        CHECK(md.find("| tool echo |") != std::string::npos);
    }
    // Requests a mix cannot hold are refused with what to do instead.
    CHECK_THROWS_WITH_AS(mlt::mix({mlt::method_call("notifications/roots/list_changed")}),
                         doctest::Contains("a notification gets no reply"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(mlt::mix({mlt::method_call("initialize")}), doctest::Contains("the session sends it itself"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(mlt::mix({mlt::method_call("prompts/get", mlt::json::array())}),
                         doctest::Contains("the params of request 'prompts/get' must be a JSON object"),
                         std::invalid_argument);
}

MCP_LOADTEST_CASE("progress in a mix: counts and time to the first per tool, broken rules with their request ids") {
    auto server = fixture("echo_server.py");
    mlt::weighted_call good{.tool = "progress", .arguments = {{"steps", 3}}, .weight = 2.0, .progress = true};
    mlt::weighted_call unasked{.tool = "echo", .arguments = {{"message", "no progress asked"}}, .method = "tools/call"};
    mlt::weighted_call decreasing{.tool = "progress_broken", .arguments = {{"rule", "not_increasing"}}, .progress = true};
    mlt::weighted_call late{.tool = "progress_broken", .arguments = {{"rule", "after_result"}, {"steps", 1}}, .progress = true};
    const mlt::mix calls({good, unasked, decreasing, late});
    auto options = quick_options();
    options.sample_interval = 0ms;
    // Long enough that the after_result notifications (50 ms after their reply) of most calls land
    // within the run: a run of a few dozen milliseconds would see none of them.
    const mlt::workload load = mlt::closed_load{.users = 2, .duration = 500ms};
    auto report = co_await mlt::run(server, load, calls, mlt::thresholds{}, options);
    INFO(report.summary());
    CHECK(report.overall.outcomes.errors() == 0);
    const auto& progress = report.per_tool.at("progress").progress;
    const std::uint64_t progress_calls = report.per_tool.at("progress").calls();
    CHECK(progress.asked == progress_calls);
    CHECK(progress.answered == progress_calls);
    CHECK(progress.notifications == 3 * progress_calls);
    CHECK(progress.violations == 0);
    CHECK(progress.time_to_first.count == progress_calls);
    CHECK(progress.time_to_first.p50 > 0ns);
    CHECK(progress.time_to_first.max <= report.per_tool.at("progress").latency.max);
    CHECK(report.per_tool.at("echo").progress.empty());  // asked nothing: nothing to report
    const auto& broken = report.per_tool.at("progress_broken").progress;
    CHECK(broken.asked == report.per_tool.at("progress_broken").calls());
    CHECK(broken.violations > 0);  // the not_increasing calls, one each
    CHECK(report.overall.progress.asked == progress.asked + broken.asked);
    // Every rule broken is a protocol violation too, named with its request id.
    CHECK(report.progress.not_increasing == broken.violations);
    CHECK(report.progress.after_result > 0);  // the last ones may land after the run
    CHECK(report.progress.wrong_token == 0);
    CHECK(report.protocol_violations == report.progress.total());
    REQUIRE_FALSE(report.progress.samples.empty());
    for (const auto& sample : report.progress.samples) {
        CHECK(sample.find("request id ") != std::string::npos);
        CHECK(sample.find("progress_") != std::string::npos);
    }
    CHECK(report.protocol_violation_samples.empty());  // progress samples have their own list
    // JSON (round trip, schema) and Markdown carry them.
    const mlt::json j = report;
    CHECK(j["per_tool"]["progress"]["progress"]["notifications"] == 3 * progress_calls);
    CHECK(j["progress"]["not_increasing"] == report.progress.not_increasing);
    CHECK_FALSE(j["per_tool"]["echo"].contains("progress"));
    CHECK(mlt::json(j.get<mlt::load_report>()) == j);
    const auto schema = mlt_test::load_json(mlt_test::repo_dir + "/docs/schema/load_report.schema.json");
    for (const auto& p : mlt_test::validate(j, schema)) CHECK_MESSAGE(false, p);
    const std::string md = mlt::to_markdown(report);
    CHECK(md.find("### Progress") != std::string::npos);
    CHECK(md.find("| tool progress | " + std::to_string(progress_calls) + " | " + std::to_string(progress_calls) + " | " +
                  std::to_string(3 * progress_calls) + " |") != std::string::npos);
    CHECK(md.find("Progress rules broken: 0 wrong token, " + std::to_string(report.progress.after_result) +
                  " after the result") != std::string::npos);
}

MCP_LOADTEST_CASE("a trace that cannot be written costs the trace, never the run") {
    // /dev/full opens, then every write fails with ENOSPC: the writer stops, the run goes on.
    auto server = fixture("echo_server.py");
    auto options = quick_options();
    options.trace_path = "/dev/full";
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    const mlt::workload load = mlt::closed_load{.users = 4, .duration = 1s, .max_iterations = 20000};
    auto report = co_await mlt::run(server, load, calls, mlt::thresholds{}, options);
    CHECK(report.overall.calls() > 0);
    CHECK(report.overall.outcomes[mlt::outcome::ok] == report.overall.calls());
    CHECK(report.passed);
}

TEST_CASE("a trace whose formatter gets no CPU escalates, and the file stays complete and in order") {
    // The idle-priority formatter blocks on a FIFO nobody reads yet, as a thread
    // starved of CPU would: the blocks fill, a normal-priority formatter takes the
    // queue, its text (more than the 16 MiB it may hold) waits for the first one.
    const auto fifo = std::filesystem::temp_directory_path() / ("mlt-trace-fifo-" + std::to_string(::getpid()));
    std::filesystem::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::string text;
    std::thread reader;
    constexpr std::uint64_t calls = 20 * mlt::detail::trace_writer::block_records + 123;
    {
        reader = std::thread([&] {
            std::ifstream f(fifo, std::ios::binary);  // opens when the writer does
            std::this_thread::sleep_for(300ms);  // the writer runs out of blocks meanwhile
            text.assign(std::istreambuf_iterator<char>(f), {});
        });
        mlt::detail::trace_writer w(fifo);
        mlt::call_result r;
        r.outcome = mlt::outcome::ok;
        r.method = "tools/call";
        r.tool = "echo";
        r.duration = 1500us;
        const std::string message(200, 'm');  // longer lines: more than 16 MiB of text
        for (std::uint64_t i = 0; i < calls; ++i) {
            r.request_id = i;
            const bool failing = i % 7 == 0;
            r.outcome = failing ? mlt::outcome::tool_error : mlt::outcome::ok;
            r.message = failing ? message : std::string();
            w.write_call(std::chrono::nanoseconds(i * 1000), 0, i, r, i % 3 ? "" : "step", 2ms);
        }
        w.close();
        CHECK(w.escalated());
        CHECK_FALSE(w.failed());
    }
    reader.join();
    std::filesystem::remove(fifo);
    std::uint64_t expected = 0;
    bool in_order = true;
    for (std::size_t at = 0; at < text.size();) {
        const auto end = text.find('\n', at);
        if (end == std::string::npos) break;
        const auto line = std::string_view(text).substr(at, end - at);
        const auto id = line.find("\"iteration\":");
        if (id == std::string_view::npos || std::strtoull(line.data() + id + 12, nullptr, 10) != expected) in_order = false;
        ++expected;
        at = end + 1;
    }
    CHECK(in_order);
    CHECK(expected == calls);
    CHECK(text.size() > (16u << 20));
    CHECK(text.ends_with('\n'));
}

MCP_LOADTEST_CASE("generated arguments are reproducible from the seed") {
    auto server = fixture("echo_server.py");
    std::vector<std::int64_t> first, second, other;
    const auto make_mix = [](std::vector<std::int64_t>& sink) {
        mlt::weighted_call c{.tool = "add"};
        c.generate = [&sink](std::uint64_t, mlt::load_rng& rng) {
            const auto a = mlt::uniform(rng, 0, 1000000);
            sink.push_back(a);
            return mlt::json{{"a", a}, {"b", 1}};
        };
        return mlt::mix(std::vector<mlt::weighted_call>{c});
    };
    const mlt::workload load = mlt::closed_load{.users = 1, .duration = 5s, .max_iterations = 20};
    auto options = quick_options();
    options.sample_interval = 0ms;
    (void)co_await mlt::run(server, load, make_mix(first), mlt::thresholds{}, options);
    (void)co_await mlt::run(server, load, make_mix(second), mlt::thresholds{}, options);
    options.seed = 7;
    (void)co_await mlt::run(server, load, make_mix(other), mlt::thresholds{}, options);
    CHECK(first.size() == 20);
    CHECK(first == second);
    CHECK(first != other);
}

MCP_LOADTEST_CASE("a mix's calls awaited in the engine's frame: closed and open loads, a throwing generator counted") {
    // run() awaits a mix's single calls in its own frames (detail/session/call_in_place.hpp): a closed
    // load in each user's loop, an open one in each iteration's. What a call ends with, what
    // throws before it is sent and what a report adds up must be what the general path gives.
    auto server = fixture("echo_server.py");
    mlt::weighted_call add{.tool = "add"};
    add.generate = [](std::uint64_t i, mlt::load_rng&) {
        if (i % 10 == 3) throw std::runtime_error("no arguments for iteration " + std::to_string(i));
        return mlt::json{{"a", static_cast<std::int64_t>(i)}, {"b", 1}};
    };
    mlt::weighted_call missing{.tool = "no_such_tool", .arguments = mlt::json::object()};
    const mlt::mix calls(std::vector<mlt::weighted_call>{add, missing});
    auto options = quick_options();
    options.sample_interval = 0ms;
    for (const bool open : {false, true}) {
        CAPTURE(open);
        const mlt::workload load = open ? mlt::workload(mlt::open_load{.rate = 400, .duration = 250ms})
                                        : mlt::workload(mlt::closed_load{.users = 4, .duration = 10s, .max_iterations = 200});
        auto report = co_await mlt::run(server, load, calls, mlt::thresholds{}, options);
        INFO(report.summary());
        CHECK(report.iterations_completed == report.iterations_started);
        REQUIRE(report.iterations_started > 20);
        const std::uint64_t added = report.per_tool.count("add") ? report.per_tool.at("add").calls() : 0;
        const std::uint64_t unknown = report.per_tool.count("no_such_tool") ? report.per_tool.at("no_such_tool").calls() : 0;
        CHECK(added > 0);
        CHECK(unknown > 0);
        CHECK(report.per_tool.at("add").outcomes[mlt::outcome::ok] == added);
        CHECK(report.per_tool.at("no_such_tool").outcomes[mlt::outcome::ok] == 0);
        // Every iteration either threw before sending or sent one call that was recorded.
        CHECK(report.overall.calls() == added + unknown);
        CHECK(report.overall.calls() + report.failures.exceptions == report.iterations_started);
        CHECK(report.per_method.at("tools/call").calls() == report.overall.calls());
        CHECK(report.overall.histogram.count() == report.overall.calls());
        CHECK(report.failures.exceptions > 0);
        REQUIRE_FALSE(report.failures.exceptions_thrown.empty());
        CHECK(report.failures.exceptions_thrown[0].message.starts_with("no arguments for iteration"));
    }
}

// ---- scenario bodies and combinators -------------------------------------------

namespace {
// A checkout: create a cart, add an item, check the count. Iterations 7, 17, 27...
// throw before doing anything, to show that a throwing body is counted, not fatal.
asio::awaitable<void> checkout(mlt::session& s, mlt::iteration& it) {
    if (it.index() % 10 == 7) throw std::runtime_error("boom");
    auto cart = co_await it.measure("create_cart", s.call_tool("create_cart", mlt::args("user", it.index())));
    if (!it.check(cart.ok(), "create_cart failed", cart.describe())) co_return;
    const std::string id = cart.structured()["id"];
    auto add = co_await it.measure("add_item", s.call_tool("add_item", mlt::args("cart", id, "sku", "A1")));
    it.check(add.structured()["items"] == 1, "add_item lost the item", add.text());
}
}  // namespace

MCP_LOADTEST_CASE("scenario body: per-step histograms, failed checks with a sample, exceptions counted") {
    auto server = fixture("shop_server.py", {"--lose-items"});
    const mlt::workload load = mlt::closed_load{.users = 2, .duration = 20s, .max_iterations = 30};
    auto report = co_await mlt::run(server, load, checkout, mlt::thresholds{}, quick_options());
    INFO(report.summary());
    CHECK(report.iterations_started == 30);
    CHECK(report.iterations_completed == 30);
    // A run ends when its work ends, not when its duration has passed.
    CHECK(report.duration_s < 10);
    CHECK(report.per_step.at("create_cart").calls() == 27);
    CHECK(report.per_step.at("add_item").calls() == 27);
    CHECK(report.per_step.at("add_item").histogram.count() == 27);
    CHECK(report.per_tool.at("add_item").calls() == 27);
    CHECK(report.overall.calls() == 54);
    // Every fifth add_item is lost: 5 of 27.
    CHECK(report.failures.failed_checks == 5);
    REQUIRE(report.failures.checks.size() == 1);
    CHECK(report.failures.checks[0].message == "add_item lost the item");
    CHECK(report.failures.checks[0].count == 5);
    CHECK(report.failures.checks[0].sample.find("total") != std::string::npos);
    CHECK(report.failures.exceptions == 3);
    REQUIRE(report.failures.exceptions_thrown.size() == 1);
    CHECK(report.failures.exceptions_thrown[0].message == "boom");
    CHECK(report.failures.exceptions_thrown[0].first_iteration == 7);
    // Failed checks and exceptions fail the run by default.
    CHECK_FALSE(report.passed);
    std::set<std::string> metrics;
    for (const auto& v : report.violations) metrics.insert(v.metric);
    CHECK(metrics.count("failed_checks") == 1);
    CHECK(metrics.count("exceptions") == 1);
    CHECK(report.summary().find("failed check: add_item lost the item (5x") != std::string::npos);
    // ... unless allowed.
    mlt::thresholds lenient;
    lenient.max_failed_checks = 10;
    lenient.max_exceptions = 3;
    CHECK(mlt::detail::evaluate_thresholds(report, lenient).empty());
    // The failures travel with the report.
    const mlt::json j = report;
    CHECK(j.get<mlt::load_report>().failures.checks[0].count == 5);
    CHECK(j["per_step"]["add_item"]["calls"] == 27);
}

MCP_LOADTEST_CASE("scenario body: thresholds on a step gate the run, under open and staged loads") {
    auto server = fixture("shop_server.py");
    mlt::thresholds slo;
    slo.per_step["add_item"] = {.p99 = 1ns};  // impossible: must be reported
    slo.per_step["create_cart"] = {.p99 = 5s};
    slo.per_step["no_such_step"] = {.p99 = 5s};
    const mlt::workload open = mlt::open_load{.rate = 50, .duration = 1s};
    auto report = co_await mlt::run(server, open, checkout, slo, quick_options());
    std::set<std::string> metrics;
    for (const auto& v : report.violations) metrics.insert(v.metric);
    CHECK(metrics.count("step:add_item:p99") == 1);
    CHECK(metrics.count("step:create_cart:p99") == 0);
    CHECK(metrics.count("step:no_such_step") == 1);
    CHECK(report.iterations_started == 50);

    const mlt::workload staged = mlt::ramp(mlt::staged_load::driver::users, 1, 3, 2, 500ms);
    auto ramped = co_await mlt::run(server, staged, checkout, mlt::thresholds{}, quick_options());
    CHECK(ramped.per_step.at("create_cart").calls() > 0);
    CHECK(ramped.stages.at(1).stats.calls() > 0);
    CHECK(ramped.failures.failed_checks == 0);
}

MCP_LOADTEST_CASE("combinators: concurrently, release_together, repeat, with_timeout, first_of, across sessions") {
    auto server = fixture("echo_server.py");
    auto sessions = co_await mlt::open_sessions(server, 2);
    auto& s = sessions[0];
    REQUIRE(sessions[0].pid() != sessions[1].pid());

    auto replies = co_await mlt::concurrently(10, [&](std::size_t i) {
        return s.call_tool("echo", mlt::args("message", "m" + std::to_string(i)));
    });
    REQUIRE(replies.size() == 10);
    for (std::size_t i = 0; i < 10; ++i) CHECK(replies[i].text() == "m" + std::to_string(i));  // each its own reply

    std::vector<asio::awaitable<mlt::call_result>> armed;
    for (int i = 0; i < 8; ++i) armed.push_back(s.call_tool("echo", mlt::args("message", "x")));
    auto burst = co_await mlt::release_together(std::move(armed));
    CHECK(burst.results.size() == 8);
    for (const auto& r : burst.results) CHECK(r.ok());
    CHECK(burst.write_spread < burst.results.back().duration + 1s);

    auto three = co_await mlt::repeat(3, [&](std::size_t) { return s.ping(); });
    CHECK(three.size() == 3);
    auto some = co_await mlt::repeat_for(200ms, [&](std::size_t) { return s.ping(); });
    CHECK(some.size() >= 1);

    // The server sleeps 2 s: the time runs out first and the call is cancelled.
    auto late = co_await mlt::with_timeout(200ms, s.call_tool("sleep", mlt::args("ms", 2000)));
    CHECK(late.timed_out);
    CHECK_FALSE(late.value.has_value());
    auto fast = co_await mlt::with_timeout(5s, sessions[1].call_tool("echo", mlt::args("message", "y")));
    REQUIRE(fast.value.has_value());
    CHECK(fast.value->text() == "y");

    // The other session is free: its echo wins over a 1 s sleep here.
    auto first = co_await mlt::first_of(sessions[0].call_tool("sleep", mlt::args("ms", 1000)),
                                        sessions[1].call_tool("echo", mlt::args("message", "z")));
    CHECK(first.index == 1);
    CHECK(first.value.text() == "z");

    auto across = co_await mlt::concurrently(sessions, 6, [](mlt::session& each, std::size_t i) {
        return each.call_tool("echo", mlt::args("message", std::to_string(i)));
    });
    CHECK(across.size() == 6);
    for (const auto& r : across) CHECK(r.ok());
    co_await mlt::close_sessions(sessions);
}

MCP_LOADTEST_CASE("measure, think and check outside run(): a standalone iteration keeps its own tally") {
    auto server = fixture("echo_server.py");
    auto s = co_await mlt::connect(server);
    mlt::iteration it;
    auto r = co_await it.measure("echo", s.call_tool("echo", mlt::args("message", "hi")));
    CHECK(it.check(r.text() == "hi", "echo changed the message"));
    co_await it.think(1ms);
    CHECK_FALSE(it.check(false, "a check that fails", "its sample"));
    auto both = co_await it.measure("two pings", mlt::concurrently(2, [&](std::size_t) { return s.ping(); }));
    CHECK(both.size() == 2);
    const auto& tally = it.tally();
    CHECK(tally.per_step.at("echo").calls() == 1);
    CHECK(tally.per_step.at("two pings").histogram.count() == 1);
    CHECK(tally.per_tool.at("echo").calls() == 1);
    CHECK(tally.failures.failed_checks == 1);
    CHECK(tally.failures.checks.at(0).sample == "its sample");
    co_await s.close();
}

// ---- thresholds --------------------------------------------------------------------

MCP_LOADTEST_CASE("thresholds: violations say expected vs actual, missing evidence fails") {
    auto server = fixture("slow_server.py", {"--delay-ms", "50"});
    auto options = quick_options();
    options.sample_interval = 0ms;
    mlt::thresholds slo;
    slo.p50 = 1ms;
    slo.error_rate = 0.5;
    slo.per_tool["never_called"] = mlt::latency_thresholds{.p99 = 1s};
    slo.rss_growth_mb = 10;
    const mlt::workload load = mlt::open_load{.rate = 50, .duration = 1s};
    const auto calls = mlt::mix::single("slow");
    auto report = co_await mlt::run(server, load, calls, slo, options);
    CHECK_FALSE(report.passed);
    std::map<std::string, mlt::threshold_violation> by_metric;
    for (const auto& v : report.violations) by_metric[v.metric] = v;
    REQUIRE(by_metric.count("p50"));
    CHECK(by_metric["p50"].expected == "<= 1 ms");
    CHECK(by_metric["p50"].actual.find("ms") != std::string::npos);
    CHECK_FALSE(by_metric["p50"].meaning.empty());
    CHECK(by_metric.count("error_rate") == 0);
    CHECK(by_metric.count("tool:never_called") == 1);
    CHECK(by_metric.count("process") == 1);  // rss objective without samples
    const std::string text = mlt::detail::passed_failure(report);
    CHECK(text.find("p50: expected <= 1 ms") != std::string::npos);
}

MCP_LOADTEST_CASE("abort on breach: a server too slow for its p99 ends the run within one interval after the delay") {
    // Every call takes 100 ms (each on its own thread): p99 <= 20 ms is breached from the first call.
    auto server = mlt_test::native_fixture({"--delay-ms", "100"});
    mlt::thresholds slo;
    slo.p99 = 20ms;
    slo.abort_on_breach_after = 2s;
    const mlt::workload load = mlt::open_load{.rate = 20, .duration = 20s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    auto options = quick_options();
    options.sample_interval = 0ms;
    const auto t0 = std::chrono::steady_clock::now();
    auto report = co_await mlt::run(server, load, calls, slo, options);
    const auto took = std::chrono::steady_clock::now() - t0;
    INFO(report.summary());
    REQUIRE(report.breach.has_value());
    const auto& b = *report.breach;
    // Judged at the delay (2 s), then every timeline bucket (1 s): the first judgment finds it.
    CHECK(b.at_s >= 2.0);
    CHECK(b.at_s < 3.0);
    CHECK(b.violation.metric == "p99");
    CHECK(b.violation.expected == "<= 20 ms");
    CHECK(b.latency.p99 >= 100ms);
    CHECK(b.calls >= 30);  // 20/s for 2 s, less the calls still in flight
    CHECK(b.error_rate == 0);
    CHECK(report.aborted);
    CHECK(report.abort_reason.rfind("objective p99 breached at ", 0) == 0);
    CHECK_FALSE(report.passed);
    // The abort's own latency: from the judgment to the end of the load (the calls in flight end).
    MESSAGE("breach judged at " << b.at_s << " s, the load ended at " << report.duration_s << " s");
    CHECK(report.duration_s - b.at_s < 1.0);
    CHECK(took < 8s);
    bool run_violation = false;
    for (const auto& v : report.violations)
        if (v.metric == "run") run_violation = v.meaning.find("abort_on_breach_after") != std::string::npos;
    CHECK(run_violation);
    const auto back = mlt::json(report).get<mlt::load_report>();
    REQUIRE(back.breach.has_value());
    CHECK(back.breach->violation.metric == "p99");
    CHECK(mlt::json(back) == mlt::json(report));
}

MCP_LOADTEST_CASE("abort on breach: a healthy server runs its whole load, and an objective without evidence waits") {
    auto server = fixture("echo_server.py");
    mlt::thresholds slo;
    slo.p99 = 2s;
    slo.error_rate = 0.0;
    slo.per_tool["never_called"] = {.p99 = 1s};  // unproven while the run goes on, not breached
    slo.abort_on_breach_after = 500ms;
    const mlt::workload load = mlt::open_load{.rate = 50, .duration = 3s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    auto options = quick_options();
    options.sample_interval = 0ms;
    auto report = co_await mlt::run(server, load, calls, slo, options);
    INFO(report.summary());
    CHECK_FALSE(report.aborted);
    CHECK_FALSE(report.breach.has_value());
    CHECK(report.duration_s >= 2.9);  // the last arrival is due at 2.98 s
    CHECK(report.iterations_started == 150);
    // At the end the tool that was never called fails the run as before, for want of evidence.
    REQUIRE(report.violations.size() == 1);
    CHECK(report.violations[0].metric == "tool:never_called");
    CHECK_FALSE(mlt::json(report).contains("breach"));
}

MCP_LOADTEST_CASE("abort on critical: a server that deadlocks stops the run at the first deadlock") {
    auto server = mlt_test::native_fixture({"--hang-on-call"});
    mlt::thresholds slo;
    slo.abort_on_critical = true;
    const mlt::workload load = mlt::open_load{.rate = 20, .duration = 20s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    auto options = quick_options();
    options.sample_interval = 0ms;
    options.call.timeout = 300ms;
    options.call.grace = 200ms;  // no reply within 500 ms in all: deadlock
    const auto t0 = std::chrono::steady_clock::now();
    auto report = co_await mlt::run(server, load, calls, slo, options);
    INFO(report.summary());
    CHECK(std::chrono::steady_clock::now() - t0 < 5s);  // far below the 20 s of load
    CHECK(report.aborted);
    CHECK(report.abort_reason.rfind("critical outcome deadlock on tools/call echo", 0) == 0);
    CHECK(report.deadlocks() >= 1);
    CHECK(report.overall.outcomes[mlt::outcome::ok] == 0);
    CHECK_FALSE(report.passed);
}

MCP_LOADTEST_CASE("closed model: think time paces each user") {
    // Two users for 2 s, 250 ms of think time after each ~1 ms call: about 8 iterations each.
    // Ignored, the same users would run thousands.
    auto server = mlt_test::native_fixture();
    const mlt::workload load = mlt::closed_load{.users = 2, .duration = 2s, .think_time = 250ms};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    auto options = quick_options();
    options.sample_interval = 0ms;
    const mlt::thresholds none;
    auto report = co_await mlt::run(server, load, calls, none, options);
    INFO(report.summary());
    CHECK(report.iterations_started >= 10);
    CHECK(report.iterations_started <= 18);
    CHECK(report.overall.outcomes[mlt::outcome::ok] == report.iterations_completed);
}

MCP_LOADTEST_CASE("abort on critical: a crashing server stops the run early") {
    auto server = fixture("crash_server.py", {"--after", "30"});
    server.stderr_to = mlt::stderr_mode::discard;
    mlt::thresholds slo;
    slo.abort_on_critical = true;
    const mlt::workload load = mlt::open_load{.rate = 100, .duration = 10s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    const auto t0 = std::chrono::steady_clock::now();
    auto report = co_await mlt::run(server, load, calls, slo, quick_options());
    CHECK(std::chrono::steady_clock::now() - t0 < 5s);
    CHECK(report.aborted);
    CHECK(report.abort_reason.find("crash") != std::string::npos);
    CHECK(report.crashes() >= 1);
    for (const auto& v : report.violations) CHECK(v.describe().find("..") == std::string::npos);
    CHECK_FALSE(report.passed);
}

// ---- detectors -----------------------------------------------------------------

MCP_LOADTEST_CASE("deadlock probe: the lazy-init deadlock is critical within twice the hang threshold") {
    auto server = fixture("hang_on_first_call.py");
    mlt::probe_options options{.concurrent = 20, .hang_threshold = 1s};
    const auto args = mlt::args("ticker", "AAPL");
    auto probe = co_await mlt::deadlock_probe(server, "get_market_data", args, options);
    CHECK(probe.verdict == mlt::probe_verdict::critical);
    CHECK(probe.deadlocked == 20);
    CHECK(probe.deadlocked_ids.size() == 20);
    for (const auto& c : probe.calls) CHECK(c.duration < 2s);
    // A server known to be wedged is killed at once, not waited for: the verdict
    // comes at 1.5 s (threshold + grace), the probe ends soon after, once the
    // hang evidence (gdb's stacks when gdb is installed) is taken.
    CHECK(probe.evidence.taken());
    CHECK(probe.took < 3s + probe.evidence.took);
    const std::string text = mlt::detail::no_deadlock_failure(probe);
    CHECK(text.find("tools/call") != std::string::npos);
    CHECK(text.find(std::to_string(probe.deadlocked_ids.front())) != std::string::npos);

    auto healthy = fixture("echo_server.py");
    const auto echo_args = mlt::args("message", "x");
    auto ok = co_await mlt::deadlock_probe(healthy, "echo", echo_args, options);
    MCP_CHECK_NO_DEADLOCK(ok);
    CHECK(ok.verdict == mlt::probe_verdict::pass);
    CHECK(ok.ok == 20);
}

MCP_LOADTEST_CASE("deadlock probe: a server stuck before tools/list is reported at that stage") {
    auto server = fixture("slow_init_server.py", {"--delay-ms", "3000"});
    server.startup_timeout = 300ms;
    const auto args = mlt::args("message", "x");
    auto probe = co_await mlt::deadlock_probe(server, "echo", args, mlt::probe_options{.hang_threshold = 500ms});
    CHECK(probe.verdict == mlt::probe_verdict::critical);
    CHECK(probe.failed_stage == "initialize");
    CHECK(probe.has_deadlock());
}

MCP_LOADTEST_CASE("race check: a racy lazy cache diverges, the locked one does not") {
    auto racy = fixture("race_server.py");
    auto report = co_await mlt::race_check(racy, "get_config", mlt::json::object(), mlt::race_options{.concurrent = 10});
    CHECK(report.calls == 10);
    CHECK(report.divergent());
    CHECK(mlt::detail::no_divergence_failure(report).find("different responses") != std::string::npos);
    // The report is data: JSON both ways, the groups intact.
    const auto back = mlt::json(report).get<mlt::race_report>();
    CHECK(back.divergent());
    CHECK(back.groups.size() == report.groups.size());
    CHECK(back.groups[0].count == report.groups[0].count);
    CHECK(back.groups[0].request_ids == report.groups[0].request_ids);
    CHECK(mlt::json(back) == mlt::json(report));
    // ignore_paths written inline (safe on GCC 12: the list is trivially copyable):
    // without the content, every answer is the same.
    auto ignoring = co_await mlt::race_check(racy, "get_config", mlt::json::object(),
                                             {.concurrent = 10, .ignore_paths = {"/content", "/structuredContent"}});
    CHECK_FALSE(ignoring.divergent());

    auto fixed = fixture("race_server.py", {"--fixed"});
    auto clean = co_await mlt::race_check(fixed, "get_config", mlt::json::object(), mlt::race_options{.concurrent = 10});
    MCP_CHECK_NO_DIVERGENCE(clean);
    CHECK(clean.groups.size() == 1);
    CHECK(clean.groups[0].count == 10);
}

MCP_LOADTEST_CASE("cold start: each phase gets a real histogram") {
    auto server = fixture("slow_init_server.py", {"--delay-ms", "200"});
    const auto args = mlt::args("message", "x");
    auto report = co_await mlt::cold_start(server, "echo", args, mlt::cold_start_options{.iterations = 3});
    CHECK(report.samples.size() == 4);
    CHECK(report.discarded == 1);
    CHECK(report.failures == 0);
    CHECK(report.initialize.count() == 3);
    CHECK(report.initialize_summary.p50 >= 200ms);
    CHECK(report.spawn_summary.p50 < 200ms);
    CHECK(report.first_call_summary.max < 1s);
    CHECK(report.total_summary.min >= report.initialize_summary.min);
}

MCP_LOADTEST_CASE("leak detection: a leaking server is flagged, warm-up-only allocation is not") {
    auto options = quick_options();
    options.sample_interval = 50ms;
    options.leak.warmup = 500ms;
    options.leak.rss_growth_mb = 3;
    const mlt::workload load = mlt::open_load{.rate = 150, .duration = 3s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));

    auto leaking = fixture("leak_server.py", {"--kb-per-call", "100"});
    auto leak_report = co_await mlt::run(leaking, load, calls, mlt::thresholds{.rss_growth_mb = 3}, options);
    const std::string leak_text = mlt::detail::no_leak_failure(leak_report);
    CHECK(leak_text.find("rss_mb") != std::string::npos);
    CHECK_FALSE(leak_report.passed);

    auto warmup_only = fixture("leak_server.py", {"--kb-per-call", "100", "--warmup-calls", "40"});
    auto flat_report = co_await mlt::run(warmup_only, load, calls, mlt::thresholds{.rss_growth_mb = 3}, options);
    MCP_CHECK_NO_LEAK(flat_report);
    MCP_CHECK_PASSED(flat_report);
}

// ---- the report as data -----------------------------------------------------------

MCP_LOADTEST_CASE("the report round-trips through JSON and matches its published schema") {
    auto server = fixture("echo_server.py");
    const mlt::workload load = mlt::open_load{.rate = 100, .duration = 1s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    mlt::thresholds slo;
    slo.p99 = 1ns;  // a violation to carry
    auto report = co_await mlt::run(server, load, calls, slo, quick_options());
    const mlt::json j = report;
    const auto back = j.get<mlt::load_report>();
    CHECK(mlt::json(back) == j);
    CHECK(back.overall.histogram.count() == report.overall.histogram.count());
    CHECK(back.overall.latency.p99 == report.overall.latency.p99);

    const auto schema = mlt_test::load_json(mlt_test::repo_dir + "/docs/schema/load_report.schema.json");
    const auto problems = mlt_test::validate(j, schema);
    for (const auto& p : problems) CHECK_MESSAGE(false, p);
    CHECK(problems.empty());
    CHECK_THROWS_AS(mlt::json::object().get<mlt::load_report>(), std::invalid_argument);
}
