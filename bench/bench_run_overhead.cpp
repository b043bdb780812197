// What the load engine and its per-call trace cost, measured in the same run.
//
// Drives bench/fast_echo_server with mlt::run() (closed model, 64 users on one
// session, no think time) three ways: with process sampling off and no trace,
// with the JSONL trace on, with sampling every 100 ms, and recording every
// message (client_options::record, docs/replay.md). Prints calls/s for each,
// the ratios, the trace's and the recording's cost per call, and the client's
// CPU time per call (all its threads). The variants alternate run by run.
// Asserts no timing.
//
//     bench_run_overhead [seconds per run, default 2] [runs, default 3]
#include <mcp_loadtest/mcp_loadtest.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/resource.h>
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
    bool record = false;
};

double cpu_seconds() {  // this process, every thread (the trace's formatter too)
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double measure(const variant& v, double seconds, std::uint64_t& calls_out, std::uintmax_t& trace_bytes,
               double& cpu_ns_per_call) {
    asio::io_context ctx;
    const double cpu0 = cpu_seconds();
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
            if (v.record) {
                options.client.record = true;
                // Every message, not the first 256 MiB (the default bound holds ~1.4 s of this run).
                options.client.max_recording_bytes = std::size_t{4} << 30;
                options.record_into = std::make_shared<mlt::recording>();
            }
            const mlt::thresholds none{};
            auto report = co_await mlt::run(server, load, calls, none, options);
            calls_out = report.overall.calls();
            if (v.record) trace_bytes = options.record_into->message_bytes();
            rate = report.throughput_rps;
            if (report.overall.outcomes[mlt::outcome::ok] != report.overall.calls()) {
                std::fprintf(stderr, "calls failed: %s", report.summary().c_str());
                std::exit(1);
            }
        },
        asio::detached);
    ctx.run();
    cpu_ns_per_call = calls_out ? (cpu_seconds() - cpu0) / static_cast<double>(calls_out) * 1e9 : 0;
    std::error_code ec;
    if (v.trace) trace_bytes = std::filesystem::file_size(trace_path, ec);
    std::filesystem::remove(trace_path, ec);
    return rate;
}

}  // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::strtod(argv[1], nullptr) : 2.0;
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    const std::vector<variant> variants{{"engine, no trace, no sampling", false, 0ms},
                                        {"engine + JSONL trace", true, 0ms},
                                        {"engine + sampling every 100 ms", false, 100ms},
                                        {"engine + recording every message", false, 0ms, true}};
    // Rounds alternate the variants (one run of each per round), so a change of
    // the machine's load hits them alike; each ratio is of medians.
    std::vector<std::vector<double>> rates(variants.size()), cpu(variants.size());
    std::vector<std::uint64_t> calls(variants.size());
    std::vector<std::uintmax_t> bytes(variants.size());
    for (int r = 0; r < runs; ++r)
        for (std::size_t i = 0; i < variants.size(); ++i) {
            double cpu_ns = 0;
            rates[i].push_back(measure(variants[i], seconds, calls[i], bytes[i], cpu_ns));
            cpu[i].push_back(cpu_ns);
        }
    // Per round: the traced rate over the untraced one measured just before it.
    std::vector<double> round_ratios;
    for (int r = 0; r < runs; ++r) round_ratios.push_back(rates[1][r] / rates[0][r]);
    std::vector<double> medians;
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const auto& v = variants[i];
        auto& sorted = rates[i];
        std::sort(sorted.begin(), sorted.end());
        const double median = sorted[sorted.size() / 2];
        medians.push_back(median);
        std::printf("%-34s %10.0f calls/s (median of %d, %.0f..%.0f)", v.name, median, runs, sorted.front(),
                    sorted.back());
        if (v.trace && calls[i]) std::printf(", trace %.0f bytes/call", static_cast<double>(bytes[i]) / calls[i]);
        if (v.record && calls[i]) std::printf(", recorded %.0f bytes/call", static_cast<double>(bytes[i]) / calls[i]);
        std::sort(cpu[i].begin(), cpu[i].end());
        std::printf(", client CPU %.0f ns/call\n", cpu[i][cpu[i].size() / 2]);
    }
    const double base_ns = 1e9 / medians[0];
    std::printf("trace: %.2fx the untraced rate, +%.0f ns per call\n", medians[1] / medians[0], 1e9 / medians[1] - base_ns);
    std::printf("sampling: %.2fx the unsampled rate\n", medians[2] / medians[0]);
    std::printf("recording: %.2fx the unrecorded rate, +%.0f ns per call\n", medians[3] / medians[0],
                1e9 / medians[3] - base_ns);
    // CPU time is less sensitive than the rate to what else runs on the machine.
    const double cpu_base = cpu[0][cpu[0].size() / 2], cpu_trace = cpu[1][cpu[1].size() / 2];
    std::printf("trace, client CPU per call (every thread): %.2fx the untraced, +%.0f ns\n", cpu_trace / cpu_base,
                cpu_trace - cpu_base);
    std::sort(round_ratios.begin(), round_ratios.end());
    std::printf("trace, per round (traced / untraced run just before): median %.2fx, %.2f..%.2f\n",
                round_ratios[round_ratios.size() / 2], round_ratios.front(), round_ratios.back());
    const double cpu_record = cpu[3][cpu[3].size() / 2];
    std::printf("recording, client CPU per call (every thread): %.2fx the unrecorded, +%.0f ns\n", cpu_record / cpu_base,
                cpu_record - cpu_base);
    std::vector<double> record_ratios;
    for (int r = 0; r < runs; ++r) record_ratios.push_back(rates[3][r] / rates[0][r]);
    std::sort(record_ratios.begin(), record_ratios.end());
    std::printf("recording, per round (recorded / unrecorded run of the same round): median %.2fx, %.2f..%.2f\n",
                record_ratios[record_ratios.size() / 2], record_ratios.front(), record_ratios.back());
    return 0;
}
