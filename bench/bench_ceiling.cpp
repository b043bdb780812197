// The ceiling search's accuracy against servers of known capacity (docs/benchmarks.md).
//
// The C++ fixture with --workers N --reply-ms M answers at most N × 1000 / M calls/s: N threads,
// each reply M ms. find_ceiling() searches each configuration `runs` times; the figures printed
// are the ceiling found against that capacity, the first rate that failed, the peak rate the
// server completed, the steps and the time taken. Asserts nothing.
//
//     bench_ceiling [runs per configuration, default 3] [--quick: the first configuration only]
//                   [--html FILE: the last search's HTML report]
#include <mcp_loadtest/ceiling.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#ifndef MCP_FIXTURE_SERVER
#define MCP_FIXTURE_SERVER "mcp_fixture_server"
#endif

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

namespace {

struct configuration {
    const char* name;
    int workers;
    int reply_ms;
    mlt::thresholds slo;
    mlt::ceiling_options search;
};

mlt::ceiling_report search_once(const configuration& c) {
    asio::io_context ctx;
    mlt::ceiling_report out;
    asio::co_spawn(
        ctx,
        [&]() -> asio::awaitable<void> {
            mlt::stdio_server server{MCP_FIXTURE_SERVER,
                                     {"--workers", std::to_string(c.workers), "--reply-ms", std::to_string(c.reply_ms)}};
            const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
            mlt::run_options options;
            options.progress = mlt::progress_mode::off;
            out = co_await mlt::find_ceiling(server, calls, c.slo, c.search, options);
        },
        asio::detached);
    ctx.run();
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
    bool quick = false;
    const char* html = nullptr;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0) quick = true;
        else if (std::strcmp(argv[i], "--html") == 0 && i + 1 < argc) html = argv[++i];
    }
    mlt::ceiling_report last;
    std::vector<configuration> configurations;
    {
        // p90, steps of 0.5 s at least; the growth tries 100, 200, 400/s.
        configuration c{"300/s (3 workers x 10 ms), p90 <= 30 ms, min_step 0.5 s", 3, 10, {}, {}};
        c.slo.p90 = 30ms;
        c.search = {.start_rate = 100, .max_rate = 5000, .min_step = 500ms, .budget = 60s};
        configurations.push_back(c);
    }
    {
        // The defaults (min_step 1 s, 1,000 calls per step for p99); the growth tries 150, 300, ... 2400/s.
        configuration c{"1600/s (8 workers x 5 ms), p99 <= 50 ms, default steps", 8, 5, {}, {}};
        c.slo.p99 = 50ms;
        c.search = {.start_rate = 150, .max_rate = 20000, .budget = 120s};
        configurations.push_back(c);
    }
    {
        // A slow server: 50 calls/s, p99 <= 500 ms; the growth tries 15, 30, 60/s.
        configuration c{"50/s (5 workers x 100 ms), p99 <= 500 ms, default steps", 5, 100, {}, {}};
        c.slo.p99 = 500ms;
        c.search = {.start_rate = 15, .max_rate = 1000, .budget = 180s};
        configurations.push_back(c);
    }
    if (quick) configurations.resize(1);
    for (const auto& c : configurations) {
        const double capacity = c.workers * 1000.0 / c.reply_ms;
        std::printf("%s\n", c.name);
        std::vector<double> errors;
        for (int r = 0; r < runs; ++r) {
            const auto report = search_once(c);
            const double error = (report.ceiling_rate - capacity) / capacity;
            errors.push_back(error);
            std::printf("  run %d: %-9s ceiling %8.1f/s (%+5.1f %%), first bad %8.1f/s, peak achieved %8.1f/s, %2zu steps, "
                        "%5.1f s\n",
                        r + 1, std::string(mlt::to_string(report.verdict)).c_str(), report.ceiling_rate, 100 * error,
                        report.first_bad_rate, report.peak_achieved_rate, report.steps.size(),
                        std::chrono::duration<double>(report.took).count());
            last = report;
        }
        std::sort(errors.begin(), errors.end());
        double worst = 0;
        for (double e : errors) worst = std::max(worst, std::fabs(e));
        std::printf("  error against the capacity: %+.1f .. %+.1f %% (worst |error| %.1f %%)\n", 100 * errors.front(),
                    100 * errors.back(), 100 * worst);
    }
    if (html) std::ofstream(html) << mlt::to_html(last);
}
