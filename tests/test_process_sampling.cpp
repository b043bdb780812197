// Process sampling and leak detection: the line fit and verdicts on synthetic
// series, /proc readings of real processes, and the sampler following leaking
// and healthy fixture servers under load.
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/leak_detection.hpp>
#include <mcp_loadtest/process_sampling.hpp>

#include "support/fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;
using mlt_test::fixture;
using std::chrono::steady_clock;

namespace {

asio::awaitable<void> sleep_for(steady_clock::duration d) {
    asio::steady_timer t(co_await asio::this_coro::executor, d);
    co_await t.async_wait(asio::use_awaitable);
}

// A series of one process every `step`, with rss_mb = rss(t seconds).
template <class Rss>
std::vector<mlt::process_sample> series(std::size_t n, std::chrono::milliseconds step, Rss rss) {
    std::vector<mlt::process_sample> out;
    for (std::size_t i = 0; i < n; ++i) {
        mlt::process_sample s;
        s.at = step * static_cast<long>(i);
        s.pid = 4242;
        s.rss_mb = rss(std::chrono::duration<double>(s.at).count());
        s.open_fds = 12;
        s.threads = 3;
        out.push_back(s);
    }
    return out;
}

const mlt::leak_analysis& analysis_of(const std::vector<mlt::leak_analysis>& all, const std::string& resource) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const auto& a) { return a.resource == resource; });
    REQUIRE(it != all.end());
    return *it;
}

// Set MLT_SAMPLING_VERBOSE=1 to see the fits of the fixture runs.
void report(const std::string& what, const std::vector<mlt::leak_analysis>& all, std::size_t samples) {
    if (!std::getenv("MLT_SAMPLING_VERBOSE")) return;
    std::cerr << what << " (" << samples << " samples)\n";
    for (const auto& a : all)
        std::cerr << "  " << a.resource << ": " << mlt::to_string(a.verdict) << ", slope " << a.fit.slope_per_s
                  << "/s, R2 " << a.fit.r2 << ", " << a.fit.points << " points: " << a.explanation << "\n";
}

struct load_run {
    pid_t pid = 0;
    std::vector<mlt::process_sample> samples;
    int calls = 0;
    int ok = 0;
    std::chrono::nanoseconds mark_done{0};  // when call number `mark` had completed, from the sampler's start
};

// Connects, samples the server every 50 ms while calling echo every ~10 ms
// for `length`, then closes.
asio::awaitable<load_run> drive(mlt::stdio_server server, std::chrono::milliseconds length, int mark) {
    auto s = co_await mlt::connect(server);
    load_run run;
    run.pid = s.pid();
    mlt::process_sampler sampler(co_await asio::this_coro::executor, 50ms);
    sampler.add(run.pid, "server");
    const auto t0 = steady_clock::now();
    sampler.start();
    while (steady_clock::now() - t0 < length) {
        auto r = co_await s.call_tool("echo", mlt::args("message", "x"));
        ++run.calls;
        run.ok += r.ok() ? 1 : 0;
        if (run.calls == mark) run.mark_done = steady_clock::now() - t0;
        co_await sleep_for(10ms);
    }
    sampler.stop();
    run.samples = sampler.samples_of(run.pid);
    co_await s.close();
    co_return run;
}

}  // namespace

// ---- the line fit ------------------------------------------------------------

TEST_CASE("fit_linear: exact and hand-computed least-squares fits") {
    SUBCASE("points on a line fit exactly") {
        const std::vector<std::pair<double, double>> pts{{0, 1}, {1, 3}, {2, 5}, {3, 7}};
        const auto f = mlt::fit_linear(pts);
        CHECK(f.slope_per_s == doctest::Approx(2.0));
        CHECK(f.intercept == doctest::Approx(1.0));
        CHECK(f.r2 == doctest::Approx(1.0));
        CHECK(f.points == 4);
    }
    SUBCASE("scattered points") {
        // t̄ 1.5, ȳ 2.25, Sxx 5, Sxy 4.5: slope 0.9, intercept 0.9; SSres 0.7, SStot 4.75.
        const std::vector<std::pair<double, double>> pts{{0, 1}, {1, 2}, {2, 2}, {3, 4}};
        const auto f = mlt::fit_linear(pts);
        CHECK(f.slope_per_s == doctest::Approx(0.9));
        CHECK(f.intercept == doctest::Approx(0.9));
        CHECK(f.r2 == doctest::Approx(1.0 - 0.7 / 4.75));
    }
    SUBCASE("a flat series has slope 0 and R² 1, even where the mean rounds") {
        const std::vector<std::pair<double, double>> pts{{0, 0.1}, {0.5, 0.1}, {1, 0.1}};
        const auto f = mlt::fit_linear(pts);
        CHECK(f.slope_per_s == 0.0);
        CHECK(f.intercept == 0.1);
        CHECK(f.r2 == 1.0);
    }
    SUBCASE("a falling line") {
        const std::vector<std::pair<double, double>> pts{{0, 10}, {2, 6}, {4, 2}};
        const auto f = mlt::fit_linear(pts);
        CHECK(f.slope_per_s == doctest::Approx(-2.0));
        CHECK(f.r2 == doctest::Approx(1.0));
    }
    SUBCASE("degenerate inputs") {
        CHECK(mlt::fit_linear({}).points == 0);
        const std::vector<std::pair<double, double>> one{{3, 7}};
        CHECK(mlt::fit_linear(one).intercept == 7.0);
        CHECK(mlt::fit_linear(one).slope_per_s == 0.0);
        const std::vector<std::pair<double, double>> same_t{{1, 2}, {1, 4}};
        CHECK(mlt::fit_linear(same_t).slope_per_s == 0.0);
        CHECK(mlt::fit_linear(same_t).intercept == doctest::Approx(3.0));
    }
}

// ---- verdicts on synthetic series ------------------------------------------------

TEST_CASE("analyse_leaks: verdicts on synthetic series") {
    mlt::leak_options opt;
    opt.warmup = 1000ms;
    opt.rss_growth_mb = 5;

    SUBCASE("steady growth is a leak") {
        const auto all = mlt::analyse_leaks(series(101, 100ms, [](double t) { return 100 + 1.0 * t; }), opt);
        REQUIRE(all.size() == 3);
        const auto& rss = analysis_of(all, "rss_mb");
        CHECK(rss.verdict == mlt::leak_verdict::leak);
        CHECK(rss.fit.slope_per_s == doctest::Approx(1.0));
        CHECK(rss.fit.r2 == doctest::Approx(1.0));
        CHECK(rss.fit.points == 91);
        CHECK(rss.predicted_growth == doctest::Approx(9.0));
        CHECK(rss.threshold == 5.0);
        CHECK(rss.warmup_discarded == 1000ms);
        CHECK(rss.explanation.find("RSS grew 1 MB/s") != std::string::npos);
        CHECK(rss.explanation.find("above the 5 MB allowed") != std::string::npos);
        CHECK(analysis_of(all, "open_fds").verdict == mlt::leak_verdict::no_leak);
        CHECK(analysis_of(all, "threads").verdict == mlt::leak_verdict::no_leak);
        CHECK(mlt::has_leak(all));
    }
    SUBCASE("growth below the threshold is no leak") {
        const auto all = mlt::analyse_leaks(series(101, 100ms, [](double t) { return 100 + 0.25 * t; }), opt);
        const auto& rss = analysis_of(all, "rss_mb");
        CHECK(rss.verdict == mlt::leak_verdict::no_leak);
        CHECK(rss.predicted_growth == doctest::Approx(2.25));
        CHECK_FALSE(mlt::has_leak(all));
    }
    SUBCASE("a flat series is no leak") {
        const auto all = mlt::analyse_leaks(series(101, 100ms, [](double) { return 87.3; }), opt);
        for (const auto& a : all) {
            CHECK(a.verdict == mlt::leak_verdict::no_leak);
            CHECK(a.fit.slope_per_s == 0.0);
            CHECK(a.fit.r2 == 1.0);
            CHECK_FALSE(a.explanation.empty());
        }
        CHECK(analysis_of(all, "rss_mb").explanation.find("flat") != std::string::npos);
    }
    SUBCASE("growth only during the warm-up, then flat, is no leak") {
        const auto all =
            mlt::analyse_leaks(series(101, 100ms, [](double t) { return t < 1.0 ? 100 + 40 * t : 140.0; }), opt);
        const auto& rss = analysis_of(all, "rss_mb");
        CHECK(rss.verdict == mlt::leak_verdict::no_leak);
        CHECK(rss.fit.slope_per_s == 0.0);
        CHECK(rss.fit.r2 == 1.0);
        // Without the warm-up the same series looks like growth.
        opt.warmup = 0ms;
        opt.rss_growth_mb = 1;
        const auto raw =
            mlt::analyse_leaks(series(101, 100ms, [](double t) { return t < 1.0 ? 100 + 40 * t : 140.0; }), opt);
        CHECK(analysis_of(raw, "rss_mb").verdict != mlt::leak_verdict::no_leak);
    }
    SUBCASE("noise without a trend is no leak, with a poor fit") {
        const auto all =
            mlt::analyse_leaks(series(101, 100ms, [](double t) { return 100 + 10 * std::sin(t * 37.0); }), opt);
        const auto& rss = analysis_of(all, "rss_mb");
        CHECK(rss.verdict == mlt::leak_verdict::no_leak);
        CHECK(rss.fit.r2 < 0.5);
        CHECK(std::abs(rss.predicted_growth) < 5.0);
    }
    SUBCASE("an upward trend buried in noise is indeterminate") {
        const auto all = mlt::analyse_leaks(
            series(101, 100ms, [](double t) { return 100 + 2 * t + 30 * std::sin(t * 37.0); }), opt);
        const auto& rss = analysis_of(all, "rss_mb");
        CHECK(rss.predicted_growth > 5.0);
        CHECK(rss.fit.r2 < 0.5);
        CHECK(rss.verdict == mlt::leak_verdict::indeterminate);
        CHECK(rss.explanation.find("noisy") != std::string::npos);
    }
    SUBCASE("too few points after the warm-up is insufficient data") {
        const auto all = mlt::analyse_leaks(series(14, 100ms, [](double t) { return 100 + 50 * t; }), opt);
        for (const auto& a : all) {
            CHECK(a.verdict == mlt::leak_verdict::insufficient_data);
            CHECK(a.fit.points == 4);
            CHECK(a.explanation.find("Only 4") != std::string::npos);
        }
        const auto none = mlt::analyse_leaks({}, opt);
        REQUIRE(none.size() == 3);
        for (const auto& a : none) CHECK(a.verdict == mlt::leak_verdict::insufficient_data);
    }
    SUBCASE("descriptor and thread leaks are judged against their own thresholds") {
        auto s = series(61, 1000ms, [](double) { return 50.0; });
        for (std::size_t i = 0; i < s.size(); ++i) {
            s[i].open_fds = 10 + static_cast<std::uint32_t>(i);  // one more per second: 59 over the run
            s[i].threads = 4 + static_cast<std::uint32_t>(i / 10);  // 5 over the run
        }
        opt.warmup = 0ms;
        const auto all = mlt::analyse_leaks(s, opt);
        const auto& fds = analysis_of(all, "open_fds");
        CHECK(fds.verdict == mlt::leak_verdict::leak);
        CHECK(fds.threshold == 20.0);
        CHECK(fds.explanation.find("descriptors") != std::string::npos);
        CHECK(analysis_of(all, "threads").verdict == mlt::leak_verdict::no_leak);  // 10 allowed
        CHECK(analysis_of(all, "rss_mb").verdict == mlt::leak_verdict::no_leak);
    }
}

TEST_CASE("summarize: one process, and several added up per tick") {
    auto at = [](int s) { return std::chrono::nanoseconds(std::chrono::seconds(s)); };
    const std::vector<mlt::process_sample> samples{
        {at(0), 1, 10, 0, 5, 1},
        {at(1), 1, 12, 50, 6, 2},  {at(1), 2, 20, 0, 3, 4},
        {at(2), 1, 11, 100, 7, 1}, {at(2), 2, 25, 100, 3, 4},
    };
    std::vector<mlt::process_sample> one;
    std::copy_if(samples.begin(), samples.end(), std::back_inserter(one), [](const auto& s) { return s.pid == 1; });
    const auto p = mlt::summarize(one);
    CHECK(p.peak_rss_mb == 12.0);
    CHECK(p.final_rss_mb == 11.0);
    CHECK(p.avg_cpu_pct == doctest::Approx(75.0));  // 0.5 + 1.0 core-seconds over 2 s
    CHECK(p.peak_fds == 7);
    CHECK(p.final_fds == 7);
    CHECK(p.peak_threads == 2);
    CHECK(p.samples == 3);

    const auto all = mlt::summarize(samples);
    CHECK(all.peak_rss_mb == 36.0);
    CHECK(all.final_rss_mb == 36.0);
    CHECK(all.avg_cpu_pct == doctest::Approx(125.0));  // 2.5 core-seconds over 2 s
    CHECK(all.peak_fds == 10);
    CHECK(all.final_fds == 10);
    CHECK(all.peak_threads == 6);
    CHECK(all.samples == 5);

    CHECK(mlt::summarize({}).samples == 0);
}

TEST_CASE("JSON: samples, stats, fits and analyses round-trip") {
    const mlt::process_sample s{1500ms, 77, 12.5, 33.0, 9, 2};
    const mlt::json js = s;
    CHECK(js["at_ns"] == 1'500'000'000);
    const auto s2 = js.get<mlt::process_sample>();
    CHECK(s2.at == s.at);
    CHECK(s2.pid == 77);
    CHECK(s2.rss_mb == 12.5);
    CHECK(s2.open_fds == 9);

    const mlt::process_stats st{100.5, 90.25, 12.0, 40, 38, 7, 120};
    const auto st2 = mlt::json(st).get<mlt::process_stats>();
    CHECK(st2.peak_rss_mb == 100.5);
    CHECK(st2.final_fds == 38);
    CHECK(st2.samples == 120);

    mlt::leak_options opt;
    opt.warmup = 500ms;
    opt.rss_growth_mb = 1;
    const auto analyses = mlt::analyse_leaks(series(40, 100ms, [](double t) { return 10 + t; }), opt);
    const mlt::json ja = analyses;
    CHECK(ja[0]["verdict"] == "leak");
    CHECK(ja[0]["resource"] == "rss_mb");
    CHECK(ja[0]["warmup_discarded_ns"] == 500'000'000);
    CHECK(ja[0]["fit"]["points"] == 35);
    const auto back = ja.get<std::vector<mlt::leak_analysis>>();
    REQUIRE(back.size() == 3);
    CHECK(back[0].verdict == mlt::leak_verdict::leak);
    CHECK(back[0].fit.slope_per_s == doctest::Approx(analyses[0].fit.slope_per_s));
    CHECK(back[0].explanation == analyses[0].explanation);
    CHECK(back[1].verdict == mlt::leak_verdict::no_leak);

    mlt::json bad = ja[0];
    bad["verdict"] = "maybe";
    CHECK_THROWS((void)bad.get<mlt::leak_analysis>());
}

// ---- /proc -----------------------------------------------------------------------

TEST_CASE("read_process: this process, and dead or zombie ones") {
    const auto self = mlt::read_process(::getpid());
    REQUIRE(self.has_value());
    CHECK(self->pid == ::getpid());
    CHECK(self->rss_mb > 0);
    CHECK(self->open_fds >= 3);
    CHECK(self->threads >= 1);
    CHECK(self->cpu_pct == 0);

    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) ::_exit(0);
    // Until reaped it is a zombie: no memory, no descriptors, nothing to sample.
    for (int i = 0; i < 200 && mlt::read_process(child); ++i) ::usleep(5000);
    CHECK_FALSE(mlt::read_process(child).has_value());
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK_FALSE(mlt::read_process(child).has_value());
    CHECK_FALSE(mlt::read_process(0).has_value());
    CHECK_FALSE(mlt::read_process(-1).has_value());
}

MCP_LOADTEST_CASE("process_sampler: ticks, stop, restart, bounded memory, destruction while pending") {
    auto ex = co_await asio::this_coro::executor;
    const pid_t self = ::getpid();
    {
        mlt::process_sampler sampler(ex, 20ms);
        sampler.add(self, "self");
        CHECK(sampler.samples().empty());
        sampler.start();
        CHECK(sampler.samples().size() == 1);  // the first sample is immediate
        CHECK(sampler.samples()[0].at < 5ms);
        co_await sleep_for(150ms);
        sampler.stop();
        sampler.stop();
        const auto n = sampler.samples().size();
        CHECK(n >= 4);
        CHECK(n <= 10);
        co_await sleep_for(60ms);
        CHECK(sampler.samples().size() == n);  // stopped means stopped
        sampler.start();
        sampler.start();  // no second timer chain
        co_await sleep_for(110ms);
        const auto more = sampler.samples().size() - n;
        CHECK(more >= 2);
        CHECK(more <= 8);
        const auto& all = sampler.samples();
        CHECK(std::is_sorted(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.at < b.at; }));
        CHECK(sampler.label_of(self) == "self");
        CHECK_FALSE(sampler.exited(self));
        CHECK(all.back().rss_mb > 0);
        // Destroyed here with its timer pending: the aborted wait must not touch it.
    }
    co_await sleep_for(50ms);

    mlt::process_sampler bounded(ex, 2ms, 16);
    bounded.add(self);
    bounded.start();
    co_await sleep_for(300ms);
    bounded.stop();
    const auto& kept = bounded.samples();
    CHECK(kept.size() < 16);
    CHECK(bounded.interval() > 2ms);
    REQUIRE_FALSE(kept.empty());
    CHECK(kept.front().at == 0ns);  // the start of the run is kept ...
    CHECK(kept.back().at > 150ms);  // ... and so is its end, at a coarser grain
}

// ---- real servers under load ---------------------------------------------------------

MCP_LOADTEST_CASE("sampler follows a changing set of servers, and summarizes them") {
    auto ex = co_await asio::this_coro::executor;
    auto a_server = fixture("echo_server.py");
    auto a = co_await mlt::connect(a_server);
    const pid_t a_pid = a.pid();
    mlt::process_sampler sampler(ex, 40ms);
    sampler.add(a_pid, "a");
    sampler.start();
    co_await sleep_for(200ms);

    auto b_server = fixture("echo_server.py");
    auto b = co_await mlt::connect(b_server);
    const pid_t b_pid = b.pid();
    sampler.add(b_pid, "b");
    co_await sleep_for(200ms);
    co_await a.close();
    co_await sleep_for(200ms);
    sampler.stop();

    const auto sa = sampler.samples_of(a_pid);
    const auto sb = sampler.samples_of(b_pid);
    CHECK(sampler.exited(a_pid));
    CHECK_FALSE(sampler.exited(b_pid));
    CHECK(sampler.label_of(b_pid) == "b");
    REQUIRE(sa.size() >= 5);
    REQUIRE(sb.size() >= 5);
    CHECK(sb.front().at > sa.front().at);
    CHECK(sa.back().at < sb.back().at);  // a stopped being sampled once it exited
    for (const auto& s : sb) {
        CHECK(s.rss_mb > 1);
        CHECK(s.open_fds >= 3);
        CHECK(s.threads >= 1);
    }
    const auto& all = sampler.samples();
    CHECK(all.size() == sa.size() + sb.size());
    CHECK(std::is_sorted(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.at < y.at; }));
    const auto ta = mlt::summarize(sa), tb = mlt::summarize(sb), together = mlt::summarize(all);
    CHECK(together.samples == all.size());
    CHECK(together.peak_rss_mb > std::max(ta.peak_rss_mb, tb.peak_rss_mb));  // both alive at once
    CHECK(together.final_rss_mb == doctest::Approx(tb.final_rss_mb));       // only b at the end
    CHECK(ta.avg_cpu_pct >= 0);
    co_await b.close();
}

MCP_LOADTEST_CASE("leak_server leaking 200 KB per call is found leaking memory") {
    auto server = fixture("leak_server.py", {"--kb-per-call", "200"});
    const auto run = co_await drive(server, 2500ms, 0);
    CHECK(run.ok == run.calls);
    mlt::leak_options opt;
    opt.warmup = 300ms;
    opt.rss_growth_mb = 5;
    const auto all = mlt::analyse_leaks(run.samples, opt);
    report("leak_server --kb-per-call 200, " + std::to_string(run.calls) + " calls", all, run.samples.size());
    const auto& rss = analysis_of(all, "rss_mb");
    INFO(rss.explanation);
    CHECK(rss.verdict == mlt::leak_verdict::leak);
    CHECK(rss.fit.r2 > 0.9);
    // About 200 KB per call; the pace of calls sets the slope.
    CHECK(rss.fit.slope_per_s > 2.0);
    CHECK(analysis_of(all, "open_fds").verdict == mlt::leak_verdict::no_leak);
    CHECK(analysis_of(all, "threads").verdict == mlt::leak_verdict::no_leak);
    const auto stats = mlt::summarize(run.samples);
    CHECK(stats.peak_rss_mb - run.samples.front().rss_mb > 5.0);
}

MCP_LOADTEST_CASE("leak_server that allocates only during its warm-up calls is no leak") {
    auto server = fixture("leak_server.py", {"--kb-per-call", "200", "--warmup-calls", "50"});
    const auto run = co_await drive(server, 2500ms, 50);
    CHECK(run.ok == run.calls);
    REQUIRE(run.calls > 50);
    mlt::leak_options opt;
    opt.warmup = std::chrono::duration_cast<std::chrono::milliseconds>(run.mark_done) + 250ms;
    opt.rss_growth_mb = 5;
    REQUIRE(opt.warmup < 1800ms);  // leaves enough samples to judge
    const auto all = mlt::analyse_leaks(run.samples, opt);
    report("leak_server --warmup-calls 50, warm-up " + std::to_string(opt.warmup.count()) + " ms", all,
           run.samples.size());
    for (const auto& a : all) {
        INFO(a.resource, ": ", a.explanation);
        CHECK(a.verdict == mlt::leak_verdict::no_leak);
    }
    // It did grow, during the warm-up: about 10 MB for the 50 calls.
    CHECK(mlt::summarize(run.samples).peak_rss_mb - run.samples.front().rss_mb > 5.0);
}

MCP_LOADTEST_CASE("echo_server under the same load is no leak") {
    auto server = fixture("echo_server.py");
    const auto run = co_await drive(server, 2500ms, 0);
    CHECK(run.ok == run.calls);
    mlt::leak_options opt;
    opt.warmup = 300ms;
    opt.rss_growth_mb = 5;
    const auto all = mlt::analyse_leaks(run.samples, opt);
    report("echo_server, " + std::to_string(run.calls) + " calls", all, run.samples.size());
    for (const auto& a : all) {
        INFO(a.resource, ": ", a.explanation);
        CHECK(a.verdict == mlt::leak_verdict::no_leak);
    }
    const auto stats = mlt::summarize(run.samples);
    CHECK(stats.samples == run.samples.size());
    CHECK(stats.avg_cpu_pct > 0);
}

// ---- helpers that leave the server's process group (setsid) -------------------

namespace {

// Running or stopped: not gone and not a zombie.
bool running(pid_t pid) {
    const auto p = mlt::read_process(pid);
    return p.has_value();
}

// Waits (bounded) for a process to end; kills it if it is still there, so a
// failing check never leaves it behind. It is our fixture's helper: its pid
// came from the tool that started it.
asio::awaitable<bool> ended_within(pid_t pid, steady_clock::duration bound) {
    const auto until = steady_clock::now() + bound;
    while (running(pid) && steady_clock::now() < until) co_await sleep_for(10ms);
    const bool ended = !running(pid);
    if (!ended) ::kill(pid, SIGKILL);
    co_return ended;
}

pid_t pid_from(const mlt::call_result& r) {
    try {
        return static_cast<pid_t>(std::stol(r.text()));
    } catch (const std::exception&) {
        return 0;
    }
}

}  // namespace

MCP_LOADTEST_CASE("process_audit: a helper started with setsid() at server startup dies with the session") {
    auto server = fixture("setsid_child_server.py", {"--spawn-at-start"});
    server.stderr_to = mlt::stderr_mode::capture;
    auto s = co_await mlt::connect(server);
    const pid_t pgid = s.pid();
    auto helpers = co_await s.call_tool("helper_pids");
    MCP_REQUIRE_OK(helpers);
    const pid_t helper = pid_from(helpers);
    REQUIRE(helper > 0);
    CHECK(::getpgid(helper) != pgid);  // out of reach of a signal to the server's group
    const auto closed = co_await s.close();
    CHECK(closed.graceful());
    CHECK(co_await ended_within(helper, 2s));
}

MCP_LOADTEST_CASE("process_audit: a helper started mid-session is found by the sampler or before SIGTERM, and killed") {
    for (const bool lingers : {false, true}) {
        CAPTURE(lingers);
        auto server = fixture("setsid_child_server.py");
        if (lingers) server.args.push_back("--linger");  // ignores stdin EOF: close() goes on to SIGTERM
        server.stderr_to = mlt::stderr_mode::capture;
        server.shutdown.after_stdin_close = 200ms;
        auto s = co_await mlt::connect(server);
        auto spawned = co_await s.call_tool("spawn_detached");
        MCP_REQUIRE_OK(spawned);
        const pid_t helper = pid_from(spawned);
        REQUIRE(helper > 0);
        if (!lingers) {
            // Exiting on stdin EOF, the server never sees a signal: a sampler tick is what saw the helper.
            mlt::process_sampler sampler(co_await asio::this_coro::executor, 10ms);
            sampler.add(s.pid());
            sampler.start();
            co_await sleep_for(30ms);
            sampler.stop();
        }
        co_await s.close();
        CHECK(co_await ended_within(helper, 2s));
    }
}

MCP_LOADTEST_CASE("process_audit: survivors() lists a live server's helper that left its group") {
    auto server = fixture("setsid_child_server.py");
    server.stderr_to = mlt::stderr_mode::capture;
    auto s = co_await mlt::connect(server);
    auto spawned = co_await s.call_tool("spawn_detached");
    MCP_REQUIRE_OK(spawned);
    const pid_t helper = pid_from(spawned);
    REQUIRE(helper > 0);
    const auto survivors = mlt::process_audit::survivors();
    const auto found = std::find_if(survivors.begin(), survivors.end(),
                                    [&](const mlt::audited_process& p) { return p.pid == helper; });
    CHECK(found != survivors.end());
    co_await s.close();
    CHECK(co_await ended_within(helper, 2s));
    for (const auto& p : mlt::process_audit::survivors()) CHECK_MESSAGE(p.pid != helper, p.describe());
}
