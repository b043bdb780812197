// The latency histogram's costs: record(), percentile(), summary(), merge() and the encodings.
//
// Prints ns per operation; no assertions. `bench_histogram [iterations]` records `iterations`
// durations (log-uniform over 1 us .. 10 s, precomputed so the generator is not timed); the
// scans (percentile, summary, merge, encodings) run iterations / 100 times (CI runs a short smoke).
#include <mcp_loadtest/histogram.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace mlt = mcp_loadtest;
using clk = std::chrono::steady_clock;

namespace {

volatile std::uint64_t sink = 0;

template <class F>
double ns_per_op(std::size_t iterations, F&& f) {
    for (std::size_t i = 0; i < iterations / 10 + 1; ++i) f(i);  // warm up
    const auto t0 = clk::now();
    for (std::size_t i = 0; i < iterations; ++i) f(i);
    return std::chrono::duration<double, std::nano>(clk::now() - t0).count() / static_cast<double>(iterations);
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
    const std::size_t scans = std::max<std::size_t>(n / 100, 10);

    std::vector<std::chrono::nanoseconds> durations(1 << 16);
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> exponent(std::log(1e3), std::log(1e10));
    for (auto& d : durations) d = std::chrono::nanoseconds{static_cast<std::int64_t>(std::exp(exponent(rng)))};
    const std::size_t mask = durations.size() - 1;

    mlt::latency_histogram h;
    const double record = ns_per_op(n, [&](std::size_t i) { h.record(durations[i & mask]); });
    const double record_n = ns_per_op(n, [&](std::size_t i) { h.record_n(durations[i & mask], 3); });

    const double percentile = ns_per_op(scans, [&](std::size_t i) {
        sink = sink + static_cast<std::uint64_t>(h.percentile(i % 2 == 0 ? 99.0 : 50.0).count());
    });
    const double summary = ns_per_op(scans, [&](std::size_t) { sink = sink + h.summary().count; });

    mlt::latency_histogram other, target;
    for (std::size_t i = 0; i < 100'000; ++i) other.record(durations[(i * 7) & mask]);
    const double merge = ns_per_op(scans, [&](std::size_t) {
        target.merge(other);
        sink = sink + target.count();
    });

    mlt::latency_histogram small;  // a per-tool histogram: a few hundred calls, few buckets
    for (std::size_t i = 0; i < 300; ++i) small.record(std::chrono::microseconds(800 + (i * 37) % 4000));
    const double percentile_small =
        ns_per_op(scans, [&](std::size_t) { sink = sink + static_cast<std::uint64_t>(small.percentile(99).count()); });

    std::size_t json_bytes = 0, hdr_chars = 0;
    const double to_json = ns_per_op(std::max<std::size_t>(scans / 10, 3), [&](std::size_t) {
        json_bytes = mlt::json(h).dump().size();
        sink = sink + json_bytes;
    });
    const double to_hdr = ns_per_op(std::max<std::size_t>(scans / 10, 3), [&](std::size_t) {
        hdr_chars = mlt::to_hdr_base64(h).size();
        sink = sink + hdr_chars;
    });

    std::size_t used = 0;
    h.for_each_bucket([&](std::size_t, std::uint64_t) { ++used; });
    std::printf("records: %zu x2 (log-uniform 1 us .. 10 s); scans: %zu; buckets in use: %zu of %zu\n", n, scans,
                used, mlt::latency_histogram::counts_len);
    std::printf("record():                 %8.2f ns/op\n", record);
    std::printf("record_n(d, 3):           %8.2f ns/op\n", record_n);
    std::printf("percentile() (wide data): %8.0f ns/op\n", percentile);
    std::printf("percentile() (300 calls): %8.0f ns/op\n", percentile_small);
    std::printf("summary() (5 pct+stddev): %8.0f ns/op\n", summary);
    std::printf("merge() (23552 counters): %8.0f ns/op\n", merge);
    std::printf("to_json + dump:           %8.0f ns/op (%zu bytes)\n", to_json, json_bytes);
    std::printf("to_hdr_base64:            %8.0f ns/op (%zu chars)\n", to_hdr, hdr_chars);
    return 0;
}
