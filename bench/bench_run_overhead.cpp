// What the load engine and its per-call trace cost, measured in the same run.
//
// Drives bench/fast_echo_server with mlt::run() (closed model, 64 users on one
// session, no think time) three ways: with process sampling off and no trace,
// with the JSONL trace on, and with sampling every 100 ms. Prints calls/s for
// each, the ratios, and the trace's cost per call. Asserts no timing.
//
//     bench_run_overhead [seconds per run, default 2] [runs, default 3]
#include <mcp_loadtest/mcp_loadtest.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#ifndef FAST_ECHO_SERVER
#define FAST_ECHO_SERVER "fast_echo_server"
#endif

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

namespace {

struct variant {
    const char* name;
    bool trace;
    std::chrono::milliseconds sampling;
};

double measure(const variant& v, double seconds, std::uint64_t& calls_out, std::uintmax_t& trace_bytes) {
    asio::io_context ctx;
    double rate = 0;
    const auto trace_path = std::filesystem::temp_directory_path() / ("mlt-bench-trace-" + std::to_string(::getpid()) + ".jsonl");
    asio::co_spawn(
        ctx,
        [&]() -> asio::awaitable<void> {
            mlt::stdio_server server{FAST_ECHO_SERVER};
            const mlt::workload load = mlt::closed_load{
                .users = 64, .duration = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds))};
            const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
            mlt::run_options options;
            options.sample_interval = v.sampling;
            if (v.trace) options.trace_path = trace_path;
            const mlt::thresholds none{};
            auto report = co_await mlt::run(server, load, calls, none, options);
            calls_out = report.overall.calls();
            rate = report.throughput_rps;
            if (report.overall.outcomes[mlt::outcome::ok] != report.overall.calls()) {
                std::fprintf(stderr, "calls failed: %s", report.summary().c_str());
                std::exit(1);
            }
        },
        asio::detached);
    ctx.run();
    std::error_code ec;
    trace_bytes = v.trace ? std::filesystem::file_size(trace_path, ec) : 0;
    std::filesystem::remove(trace_path, ec);
    return rate;
}

}  // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::strtod(argv[1], nullptr) : 2.0;
    const int runs = argc > 2 ? std::atoi(argv[2]) : 3;
    const std::vector<variant> variants{{"engine, no trace, no sampling", false, 0ms},
                                        {"engine + JSONL trace", true, 0ms},
                                        {"engine + sampling every 100 ms", false, 100ms}};
    std::vector<double> medians;
    for (const auto& v : variants) {
        std::vector<double> rates;
        std::uint64_t calls = 0;
        std::uintmax_t bytes = 0;
        for (int r = 0; r < runs; ++r) rates.push_back(measure(v, seconds, calls, bytes));
        std::sort(rates.begin(), rates.end());
        const double median = rates[rates.size() / 2];
        medians.push_back(median);
        std::printf("%-34s %10.0f calls/s (median of %d, %.0f..%.0f)", v.name, median, runs, rates.front(),
                    rates.back());
        if (v.trace && calls) std::printf(", trace %.0f bytes/call", static_cast<double>(bytes) / calls);
        std::printf("\n");
    }
    const double base_ns = 1e9 / medians[0];
    std::printf("trace: %.2fx the untraced rate, +%.0f ns per call\n", medians[1] / medians[0], 1e9 / medians[1] - base_ns);
    std::printf("sampling: %.2fx the unsampled rate\n", medians[2] / medians[0]);
    return 0;
}
