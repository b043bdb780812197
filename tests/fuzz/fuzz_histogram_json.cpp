// libFuzzer harness: the exact JSON form of latency_histogram and latency_summary (from_json in
// histogram.hpp), on inputs that are JSON. Bad input may only throw std::invalid_argument; what
// decodes must be stable (decode -> encode -> decode gives the same), its summary must read back,
// and it must survive the HdrHistogram V2 encoding or be refused by it.
#include "fuzz_support.hpp"

#include <mcp_loadtest/histogram.hpp>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

namespace mlt = mcp_loadtest;
using H = mlt::latency_histogram;

namespace {

// Milliseconds in a double carry whole nanoseconds exactly up to 2^51 ns (26 days); beyond that
// a round trip may move a value by a few parts in 2^51.
bool same_duration(std::chrono::nanoseconds a, std::chrono::nanoseconds b) {
    constexpr std::int64_t exact_below = std::int64_t{1} << 51;
    if (a.count() < exact_below && b.count() < exact_below) return a == b;
    const auto diff = a > b ? a - b : b - a;
    return diff.count() <= std::max(a, b).count() / exact_below + 1;
}

void check_summary_round_trip(const mlt::latency_summary& s) {
    const mlt::json encoded = s;
    mlt::latency_summary back;
    try {
        back = encoded.get<mlt::latency_summary>();
    } catch (const std::invalid_argument& e) {
        fuzz::fail("latency_summary's from_json rejects what its to_json wrote", __FILE__, __LINE__,
                   std::string(e.what()) + "\n" + encoded.dump());
    }
    const bool same = back.count == s.count && same_duration(back.min, s.min) && same_duration(back.max, s.max) &&
                      same_duration(back.mean, s.mean) && same_duration(back.stddev, s.stddev) &&
                      same_duration(back.p50, s.p50) && same_duration(back.p90, s.p90) &&
                      same_duration(back.p95, s.p95) && same_duration(back.p99, s.p99) &&
                      same_duration(back.p999, s.p999);
    FUZZ_CHECK(same, "latency_summary round trip: " + encoded.dump() + " -> " + mlt::json(back).dump());
}

// Every accepted histogram whose buckets fit HdrHistogram's signed 64-bit counts survives the
// V2 encoding with every bucket intact; one that does not is refused, never changed.
void check_hdr_round_trip(const H& h) {
    bool fits = true;
    h.for_each_bucket([&](std::size_t, std::uint64_t c) { fits = fits && c <= (std::uint64_t{1} << 63) - 1; });
    std::vector<std::uint8_t> bytes;
    try {
        bytes = mlt::encode_hdr_v2(h);
    } catch (const std::invalid_argument& e) {
        FUZZ_CHECK(!fits, std::string("encode_hdr_v2 refused a histogram it can carry: ") + e.what());
        return;
    }
    FUZZ_CHECK(fits, "encode_hdr_v2 wrote a bucket count above 2^63-1");
    H back;
    try {
        back = mlt::decode_hdr_v2(bytes);
    } catch (const std::invalid_argument& e) {
        fuzz::fail("decode_hdr_v2 refuses what encode_hdr_v2 wrote", __FILE__, __LINE__, e.what());
    }
    FUZZ_CHECK(back.count() == h.count());
    for (std::size_t i = 0; i < H::counts_len; ++i) FUZZ_CHECK(back.count_at_index(i) == h.count_at_index(i));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const mlt::json j = mlt::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded()) return 0;

    try {
        const H h = j.get<H>();
        const mlt::json encoded = h;
        H again;
        try {
            again = encoded.get<H>();
        } catch (const std::invalid_argument& e) {
            fuzz::fail("from_json refuses what to_json wrote", __FILE__, __LINE__,
                       std::string(e.what()) + "\n" + encoded.dump());
        }
        FUZZ_CHECK(again == h, "decode -> encode -> decode differs: " + encoded.dump());
        FUZZ_CHECK(mlt::json(again) == encoded);
        // Derived figures must not misbehave on any accepted histogram.
        const auto s = h.summary();
        FUZZ_CHECK(s.count == h.count());
        FUZZ_CHECK(h.empty() || (s.min <= s.p50 && s.p50 <= s.p999 && s.p999 <= s.max));
        check_summary_round_trip(s);
        check_hdr_round_trip(h);
    } catch (const std::invalid_argument&) {
    }

    try {
        check_summary_round_trip(j.get<mlt::latency_summary>());
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
