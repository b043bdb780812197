// Unit tests of the HdrHistogram-compatible latency histogram: bucket layout, percentiles
// against an exact reference, exact statistics, merging, the JSON form and the HdrHistogram V2
// encodings (including bytes derived by hand from the format).
#include <doctest/doctest.h>
#include <mcp_loadtest/histogram.hpp>
#include <mcp_loadtest/load_report.hpp>

#include "support/allocation_counter.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace mlt = mcp_loadtest;
using H = mlt::latency_histogram;
using namespace std::chrono_literals;
using std::chrono::nanoseconds;

using mlt_test::allocations;
using mlt_test::counting;

namespace {

nanoseconds us(std::uint64_t v) { return nanoseconds{static_cast<std::int64_t>(v * 1000)}; }

// Whole microseconds, log-uniform over [1 us, 1 hour]: every decade gets its share of values.
std::vector<std::uint64_t> log_uniform_us(std::size_t n, std::uint32_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> exponent(0.0, std::log(3.6e9));
    std::vector<std::uint64_t> v(n);
    for (auto& x : v) x = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::exp(exponent(rng))));
    return v;
}

// Arbitrary nanoseconds (not whole microseconds), roughly 0.5 ms .. 50 ms.
std::vector<std::int64_t> random_ns(std::size_t n, std::uint32_t seed) {
    std::mt19937_64 rng(seed);
    std::lognormal_distribution<double> dist(std::log(5e6), 0.8);
    std::vector<std::int64_t> v(n);
    for (auto& x : v) x = static_cast<std::int64_t>(dist(rng));
    return v;
}

// HdrHistogram's countsArrayLength for (lowest 1, highest 3.6e9, 3 digits), computed here
// independently of the header: subBucketCount = 2^ceil(log2(2 * 10^3)) = 2048, then buckets
// double until one covers the highest value, then (buckets + 1) * subBucketCount / 2.
std::size_t reference_counts_len() {
    const auto sub_bucket_count = static_cast<std::uint64_t>(std::exp2(std::ceil(std::log2(2000.0))));
    std::uint64_t smallest_untrackable = sub_bucket_count;
    std::size_t buckets = 1;
    while (smallest_untrackable <= 3'600'000'000ULL) {
        smallest_untrackable <<= 1;
        ++buckets;
    }
    return (buckets + 1) * static_cast<std::size_t>(sub_bucket_count / 2);
}

bool same_buckets(const H& a, const H& b) {
    for (std::size_t i = 0; i < H::counts_len; ++i)
        if (a.count_at_index(i) != b.count_at_index(i)) return false;
    return true;
}

std::string rejection(const mlt::json& j) {
    try {
        (void)j.get<H>();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(accepted)";
}

std::string hdr_rejection(const std::vector<std::uint8_t>& bytes) {
    try {
        (void)mlt::decode_hdr_v2(bytes);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(accepted)";
}

}  // namespace

TEST_CASE("layout: HdrHistogram(1, 3600000000, 3) has 2048 sub-buckets and 23552 counters") {
    CHECK(reference_counts_len() == 23552);
    CHECK(H::counts_len == reference_counts_len());
    CHECK(H::sub_bucket_count == 2048);
    CHECK(H::unit_magnitude == 0);
    CHECK(H::bucket_count == 22);
    CHECK(H::index_of_us(H::highest_trackable_us) < H::counts_len);
    CHECK(H::highest_equivalent_us(H::counts_len - 1) >= H::highest_trackable_us);
}

TEST_CASE("layout: index -> value -> index round trips over every counter") {
    for (std::size_t i = 0; i < H::counts_len; ++i) {
        const std::uint64_t lo = H::lowest_equivalent_us(i), hi = H::highest_equivalent_us(i);
        REQUIRE(H::index_of_us(lo) == i);
        REQUIRE(H::index_of_us(hi) == i);
        REQUIRE(H::index_of_us(H::median_equivalent_us(i)) == i);
        if (i + 1 < H::counts_len) REQUIRE(H::lowest_equivalent_us(i + 1) == hi + 1);  // contiguous, no gaps
        if (lo > 0) REQUIRE(static_cast<double>(hi - lo) / static_cast<double>(lo) <= 1.0 / 1024);
    }
    CHECK(H::lowest_equivalent_us(0) == 0);
    CHECK(H::index_of_us(2047) == 2047);  // unit-width buckets up to 2047 us
    CHECK(H::index_of_us(2048) == 2048);
    CHECK(H::bucket_width_us(2048) == 2);
    CHECK(H::index_of_us(2049) == 2048);
    CHECK(H::index_of_us(4095) == 3071);
    CHECK(H::index_of_us(4096) == 3072);
}

TEST_CASE("layout: value -> index -> value stays within 1/1024 over the whole range") {
    std::vector<std::uint64_t> values;
    for (int k = 0; k <= 31; ++k) {  // every power-of-two boundary and its neighbours
        const std::uint64_t p = std::uint64_t{1} << k;
        for (const std::uint64_t v : {p - 1, p, p + 1, 3 * p / 2}) values.push_back(v);
    }
    for (double v = 1; v <= 3.6e9; v *= 1.001) values.push_back(static_cast<std::uint64_t>(v));
    values.push_back(H::highest_trackable_us);
    for (const std::uint64_t v : values) {
        if (v > H::highest_trackable_us) continue;
        const std::size_t i = H::index_of_us(v);
        REQUIRE(H::lowest_equivalent_us(i) <= v);
        REQUIRE(v <= H::highest_equivalent_us(i));
        const double rel = v == 0 ? 0.0
                                  : static_cast<double>(H::highest_equivalent_us(i) - H::lowest_equivalent_us(i)) /
                                        static_cast<double>(v);
        REQUIRE(rel <= 1.0 / 1024);
        CHECK(H::index_of(us(v)) == i);
    }
}

TEST_CASE("percentiles: within 0.1 % of an exact sorted reference, never below it") {
    for (const std::uint32_t seed : {1u, 2u, 3u}) {
        const auto values = log_uniform_us(100'000, seed);
        H h;
        for (const auto v : values) h.record(us(v));
        auto sorted = values;
        std::sort(sorted.begin(), sorted.end());
        const std::uint64_t n = sorted.size();
        // p in thousandths of a percent, so the reference rank floor(p * n / 100) + 1 is exact integer math.
        for (const std::uint64_t p_milli : {1ULL, 100ULL, 1000ULL, 10000ULL, 25000ULL, 50000ULL, 75000ULL, 90000ULL,
                                            95000ULL, 99000ULL, 99900ULL, 99990ULL, 100000ULL}) {
            const std::uint64_t rank = std::min<std::uint64_t>(n, p_milli * n / 100'000 + 1);
            const double exact = static_cast<double>(sorted[rank - 1]) * 1000;
            const double got = static_cast<double>(h.percentile(static_cast<double>(p_milli) / 1000.0).count());
            CAPTURE(seed);
            CAPTURE(p_milli);
            CHECK(got >= exact);
            CHECK((got - exact) / exact <= 0.001);
        }
        CHECK(h.percentile(0) == us(sorted.front()));
        CHECK(h.percentile(100) == us(sorted.back()));
    }
}

TEST_CASE("percentiles: edge cases") {
    H h;
    CHECK(h.percentile(50) == 0ns);
    h.record(1500ns);  // 1 us after truncation
    CHECK(h.percentile(0) == 1500ns);  // clamped to [min, max]
    CHECK(h.percentile(50) == 1500ns);
    CHECK(h.percentile(100) == 1500ns);
    h.record(3ms);
    h.record(3ms);
    h.record(3ms);
    CHECK(h.percentile(24.9) == 1500ns);
    CHECK(h.percentile(25) == 3ms);  // 1 of 4 is 1.5 us: fewer than 75 % exceed 3 ms, not 1.5 us
    CHECK(h.percentile(26) == 3ms);
    CHECK(h.percentile(-5) == 1500ns);
    CHECK(h.percentile(250) == 3ms);
    CHECK(h.percentile(std::nan("")) == 1500ns);
    // p% of 100 values is a whole number, so p is a tie: the next value, p + 1. In doubles
    // 7 / 100.0 * 100 is 7.000000000000001 and 29 / 100.0 * 100 is 28.999999999999996; both
    // still count as ties (rank 8 and 30), not as rank 8 and 29.
    H hundred;
    for (std::uint64_t i = 1; i <= 100; ++i) hundred.record(us(i));
    for (const std::uint64_t p : {7, 14, 28, 29, 55, 56, 99})
        CHECK(hundred.percentile(static_cast<double>(p)) == us(p + 1));
    CHECK(hundred.percentile(28.9999) == us(29));
    CHECK(hundred.percentile(29.0000001) == us(30));
    CHECK(hundred.percentile(100) == us(100));

    // The case: exactly 1 % of 600 calls at 200 ms, the rest at 1 ms. HdrHistogram's
    // getValueAtPercentile(99) would give 1 ms (the 594th value); the tail is what a gate needs.
    H one_percent;
    for (int i = 0; i < 594; ++i) one_percent.record(1ms);
    for (int i = 0; i < 6; ++i) one_percent.record(200ms);
    CHECK(one_percent.percentile(99) == 200ms);
    CHECK(one_percent.summary().p99 == 200ms);
    CHECK(one_percent.percentile(98.9) == 1ms);
}

TEST_CASE("min, max and mean are exact, stddev follows HdrHistogram's bucket midpoints") {
    const auto values = random_ns(50'000, 7);
    H h;
    long double sum = 0;
    for (const auto v : values) {
        h.record(nanoseconds{v});
        sum += v;
    }
    CHECK(h.count() == values.size());
    CHECK(h.min().count() == *std::min_element(values.begin(), values.end()));
    CHECK(h.max().count() == *std::max_element(values.begin(), values.end()));
    CHECK(h.sum_ns() == static_cast<std::uint64_t>(sum));
    CHECK(h.mean().count() == static_cast<std::int64_t>(std::llround(sum / values.size())));

    long double var = 0;
    const long double m = sum / values.size();
    for (const auto v : values) var += (v - m) * (v - m);
    const double exact_sd = std::sqrt(static_cast<double>(var / values.size()));
    CHECK(std::abs(static_cast<double>(h.stddev().count()) - exact_sd) / exact_sd < 0.001);

    H constant;
    for (int i = 0; i < 10; ++i) constant.record(777ns);
    CHECK(constant.mean() == 777ns);
    CHECK(constant.stddev() == 0ns);

    H rounding;  // mean rounds to the nearest nanosecond
    rounding.record(1ns);
    rounding.record(2ns);
    CHECK(rounding.mean() == 2ns);
    rounding.record(2ns);
    CHECK(rounding.mean() == 2ns);
}

TEST_CASE("an empty histogram is cheap and reports zeros") {
    const H h;
    CHECK_FALSE(h.storage_allocated());
    CHECK(h.empty());
    CHECK(h.count() == 0);
    CHECK(h.saturated() == 0);
    CHECK(h.min() == 0ns);
    CHECK(h.max() == 0ns);
    CHECK(h.mean() == 0ns);
    CHECK(h.stddev() == 0ns);
    CHECK(h.percentile(99) == 0ns);
    CHECK(h.summary() == mlt::latency_summary{});
    CHECK(h.count_at_index(0) == 0);
    int visited = 0;
    h.for_each_bucket([&](std::size_t, std::uint64_t) { ++visited; });
    CHECK(visited == 0);
    CHECK(sizeof(H) <= 80);
}

TEST_CASE("storage: allocated once, on the first record, and record never allocates afterwards" *
          doctest::skip(!mlt_test::counts_allocations)) {
    H h;
    CHECK_FALSE(h.storage_allocated());
    allocations = 0;
    counting = true;
    h.record(5us);
    const std::uint64_t first = allocations.load();
    for (int i = 0; i < 100'000; ++i) h.record(nanoseconds{i * 997});
    h.record_n(2s, 1000);
    (void)h.percentile(99.9);
    (void)h.summary();
    counting = false;
    CHECK(first == 1);
    CHECK(allocations.load() == 1);
    CHECK(h.storage_allocated());
    h.reset();
    CHECK(h.storage_allocated());  // kept for reuse
    CHECK(h == H{});
}

TEST_CASE("saturation: values over an hour are clamped into the top bucket and counted") {
    H h;
    h.record(1h);                    // exactly the highest trackable value: not saturated
    h.record(1h + 999ns);            // still 3600000000 us after truncation
    h.record(1h + 1us);              // saturated
    h.record(5h);                    // saturated
    h.record_n(2h, 3);               // saturated x3
    CHECK(h.count() == 7);
    CHECK(h.saturated() == 5);
    CHECK(h.max() == 5h);            // exact, not clamped
    CHECK(h.count_at_index(H::index_of_us(H::highest_trackable_us)) == 7);
    CHECK(h.percentile(100) == 5h);
    CHECK(h.sum_ns() == static_cast<std::uint64_t>((1h + 1h + 999ns + 1h + 1us + 5h + 3 * 2h).count()));

    H negative;
    negative.record(-5ms);  // a clock going backwards records as 0
    CHECK(negative.count() == 1);
    CHECK(negative.min() == 0ns);
    CHECK(negative.count_at_index(0) == 1);
}

TEST_CASE("record_n(d, n) equals n x record(d)") {
    H a, b;
    for (const nanoseconds d : {0ns, 999ns, nanoseconds{1us}, nanoseconds{2047us}, nanoseconds{2048us}, 123456789ns,
                                nanoseconds{59min}}) {
        a.record_n(d, 13);
        for (int i = 0; i < 13; ++i) b.record(d);
    }
    a.record_n(7ms, 0);
    CHECK(a == b);
}

TEST_CASE("merge: exactly what recording everything into one histogram gives") {
    const auto values = random_ns(30'000, 11);
    H all, parts[3];
    for (std::size_t i = 0; i < values.size(); ++i) {
        all.record(nanoseconds{values[i]});
        parts[i % 3].record(nanoseconds{values[i]});
    }
    all.record(3h);
    parts[1].record(3h);
    H merged;  // merging into an empty histogram allocates it
    for (const auto& p : parts) merged.merge(p);
    CHECK(merged == all);
    CHECK(same_buckets(merged, all));
    CHECK(merged.saturated() == 1);
    CHECK(merged.summary() == all.summary());

    H before = merged;
    merged.merge(H{});  // merging an empty one changes nothing
    CHECK(merged == before);

    H doubled = all;
    doubled.merge(doubled);
    CHECK(doubled.count() == 2 * all.count());
    CHECK(doubled.count_at_index(H::index_of(all.min())) == 2 * all.count_at_index(H::index_of(all.min())));
}

TEST_CASE("summary matches the individual queries") {
    const auto values = random_ns(20'000, 5);
    H h;
    for (const auto v : values) h.record(nanoseconds{v});
    const auto s = h.summary();
    CHECK(s.count == h.count());
    CHECK(s.min == h.min());
    CHECK(s.max == h.max());
    CHECK(s.mean == h.mean());
    CHECK(s.stddev == h.stddev());
    CHECK(s.p50 == h.percentile(50));
    CHECK(s.p90 == h.percentile(90));
    CHECK(s.p95 == h.percentile(95));
    CHECK(s.p99 == h.percentile(99));
    CHECK(s.p999 == h.percentile(99.9));

    H one;
    one.record(42us);
    const auto s1 = one.summary();
    CHECK(s1.p50 == 42us);
    CHECK(s1.p999 == 42us);
}

TEST_CASE("JSON: exact, sparse round trip") {
    H h;
    for (const auto v : random_ns(10'000, 3)) h.record(nanoseconds{v});
    h.record(0ns);
    h.record(2h);
    const mlt::json j = h;
    CHECK(j["unit"] == "us");
    CHECK(j["lowest"] == 1);
    CHECK(j["highest"] == 3600000000ULL);
    CHECK(j["significant_digits"] == 3);
    CHECK(j["count"] == h.count());
    CHECK(j["min_ns"] == 0);
    CHECK(j["max_ns"] == static_cast<std::uint64_t>(nanoseconds{2h}.count()));
    CHECK(j["saturated"] == 1);
    std::uint64_t sum = 0;
    std::size_t previous = 0;
    for (const auto& pair : j["buckets"]) {
        CHECK(pair[1].get<std::uint64_t>() > 0);  // only non-empty buckets
        CHECK((previous == 0 || pair[0].get<std::size_t>() > previous));
        previous = pair[0].get<std::size_t>();
        sum += pair[1].get<std::uint64_t>();
    }
    CHECK(sum == h.count());

    const H back = mlt::json::parse(j.dump()).get<H>();
    CHECK(back == h);
    CHECK(same_buckets(back, h));
    CHECK(back.summary() == h.summary());

    const H empty = mlt::json(H{}).get<H>();
    CHECK(empty == H{});
    CHECK(mlt::json(H{})["buckets"].empty());
}

TEST_CASE("JSON: from_json rejects each kind of bad input, naming the field") {
    H h;
    h.record(10us);
    h.record(10us);
    h.record(3ms);
    const mlt::json good = h;
    REQUIRE(rejection(good) == "(accepted)");
    const auto with = [&](const char* key, const mlt::json& value) {
        mlt::json j = good;
        j[key] = value;
        return rejection(j);
    };
    const auto without = [&](const char* key) {
        mlt::json j = good;
        j.erase(key);
        return rejection(j);
    };
    CHECK(rejection(mlt::json::array()).find("an object") != std::string::npos);
    CHECK(with("unit", "ns").find("\"unit\" must be \"us\"") != std::string::npos);
    CHECK(with("lowest", 1000).find("\"lowest\" must be 1") != std::string::npos);
    CHECK(with("highest", 3600000000000ULL).find("\"highest\" must be 3600000000") != std::string::npos);
    CHECK(with("significant_digits", 2).find("\"significant_digits\" must be 3") != std::string::npos);
    CHECK(with("significant_digits", "3").find("\"significant_digits\"") != std::string::npos);
    CHECK(without("count").find("\"count\" must be a non-negative integer, but it is missing") != std::string::npos);
    CHECK(with("count", -3).find("\"count\" must be a non-negative integer, got -3") != std::string::npos);
    CHECK(with("count", 2.5).find("\"count\"") != std::string::npos);
    CHECK(with("count", 4).find("\"count\" must be the sum of the bucket counts (3)") != std::string::npos);
    CHECK(without("buckets").find("\"buckets\"") != std::string::npos);
    CHECK(with("buckets", mlt::json::object()).find("\"buckets\"") != std::string::npos);
    CHECK(with("buckets", {{-1, 3}}).find("non-negative integers") != std::string::npos);
    CHECK(with("buckets", {{23552, 3}}).find("\"buckets\" must be indices below 23552") != std::string::npos);
    CHECK(with("buckets", {{10, 2}, {10, 1}}).find("repeated") != std::string::npos);
    CHECK(with("buckets", {{10, 2, 1}}).find("[index, count] pairs") != std::string::npos);
    CHECK(with("buckets", {{10, -2}}).find("[index, count] pairs") != std::string::npos);
    CHECK(with("min_ns", 11'000).find("\"min_ns\" must be a value in the lowest non-empty bucket") !=
          std::string::npos);
    CHECK(with("max_ns", 2'000'000).find("\"max_ns\" must be a value in the highest non-empty bucket") !=
          std::string::npos);
    CHECK(with("saturated", 1).find("\"saturated\"") != std::string::npos);
    CHECK(with("sum_ns", 1).find("\"sum_ns\" must be between count * min_ns and count * max_ns") != std::string::npos);
    CHECK(without("min_ns").find("\"min_ns\"") != std::string::npos);

    mlt::json empty = H{};
    empty["sum_ns"] = 5;
    CHECK(rejection(empty).find("\"sum_ns\" must be 0 when count is 0") != std::string::npos);

    H target;
    target.record(1ms);
    mlt::json bad = good;
    bad["count"] = 99;
    CHECK_THROWS_AS(mlt::from_json(bad, target), std::invalid_argument);
    CHECK(target.count() == 1);  // left untouched on error
}

TEST_CASE("JSON: latency_summary in milliseconds, as reports print it") {
    H h;
    h.record(1500us);
    h.record(2500us);
    const mlt::json j = h.summary();
    CHECK(j["count"] == 2);
    CHECK(j["min_ms"] == 1.5);
    CHECK(j["max_ms"] == 2.5);
    CHECK(j["mean_ms"] == 2.0);
    CHECK(j["p50_ms"].get<double>() == doctest::Approx(2.5).epsilon(0.001));  // of two values, the upper (a tie)
    CHECK(j["p999_ms"] == 2.5);
    for (const char* key : {"stddev_ms", "p90_ms", "p95_ms", "p99_ms"}) CHECK(j.contains(key));

    H wide;
    for (const auto v : random_ns(1000, 9)) wide.record(nanoseconds{v});
    wide.record(3h);
    const auto s = wide.summary();
    CHECK(mlt::json::parse(mlt::json(s).dump()).get<mlt::latency_summary>() == s);

    mlt::json missing = j;
    missing.erase("p99_ms");
    CHECK_THROWS_WITH_AS((void)missing.get<mlt::latency_summary>(),
                         doctest::Contains("\"p99_ms\" must be a non-negative number of milliseconds"),
                         std::invalid_argument);
    mlt::json negative = j;
    negative["mean_ms"] = -1.0;
    CHECK_THROWS_AS((void)negative.get<mlt::latency_summary>(), std::invalid_argument);
}

TEST_CASE("HdrHistogram V2: uncompressed encoding of 1, 2, 2, 1000 us, byte for byte") {
    H h;
    h.record(1us);
    h.record(2us);
    h.record(2us);
    h.record(1000us);
    // Derived from the V2 format (HdrHistogram Java AbstractHistogram.encodeIntoByteBuffer, C
    // hdr_encode_compressed), not from this implementation. Values 0..2047 us have unit-width
    // buckets, so 1 -> index 1, 2 -> index 2, 1000 -> index 1000; the payload covers indices
    // 0..1000 (up to the max value's index).
    const std::vector<std::uint8_t> expected = {
        0x1c, 0x84, 0x93, 0x13,                          // cookie: V2 base 0x1c849303 | 0x10
        0x00, 0x00, 0x00, 0x06,                          // payload length: 6 bytes
        0x00, 0x00, 0x00, 0x00,                          // normalizing index offset 0
        0x00, 0x00, 0x00, 0x03,                          // significant digits 3
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  // lowest discernible value 1
        0x00, 0x00, 0x00, 0x00, 0xd6, 0x93, 0xa4, 0x00,  // highest trackable value 3600000000
        0x3f, 0xf0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // conversion ratio 1.0 (IEEE 754 bits)
        0x00,                                            // index 0: a single zero, written as count 0
        0x02,                                            // index 1: count 1, ZigZag 2
        0x04,                                            // index 2: count 2, ZigZag 4
        0xc9, 0x0f,  // indices 3..999: 997 zeros as -997, ZigZag 1993 = 0x7c9, LEB128 0xc9 0x0f
        0x02,        // index 1000: count 1
    };
    CHECK(mlt::encode_hdr_v2(h, mlt::hdr_encoding::uncompressed) == expected);
    CHECK(mlt::to_hdr_base64(h, mlt::hdr_encoding::uncompressed) ==
          "HISTEwAAAAYAAAAAAAAAAwAAAAAAAAABAAAAANaTpAA/8AAAAAAAAAACBMkPAg==");

    // Compressed: cookie 0x1c849314, zlib length 57, then zlib header 78 01, one final stored
    // block (01, LEN 46 = 2e 00, NLEN d1 ff), the 46 bytes above, adler32 0x6f83056d.
    std::vector<std::uint8_t> compressed = {0x1c, 0x84, 0x93, 0x14, 0x00, 0x00, 0x00, 0x39,
                                            0x78, 0x01, 0x01, 0x2e, 0x00, 0xd1, 0xff};
    compressed.insert(compressed.end(), expected.begin(), expected.end());
    for (const std::uint8_t b : {0x6f, 0x83, 0x05, 0x6d}) compressed.push_back(b);
    CHECK(mlt::encode_hdr_v2(h) == compressed);
    CHECK(mlt::to_hdr_base64(h) ==
          "HISTFAAAADl4AQEuANH/HISTEwAAAAYAAAAAAAAAAwAAAAAAAAABAAAAANaTpAA/8AAAAAAAAAACBMkPAm+DBW0=");

    // An empty histogram encodes index 0 only (max value 0): one zero count.
    const auto empty = mlt::encode_hdr_v2(H{}, mlt::hdr_encoding::uncompressed);
    REQUIRE(empty.size() == 41);
    CHECK(empty[7] == 1);
    CHECK(empty[40] == 0x00);
}

TEST_CASE("HdrHistogram V2: base64 round trip, both cookies") {
    H h;
    for (const auto v : log_uniform_us(20'000, 4)) h.record(us(v));
    h.record(0ns);
    h.record(3h);  // saturated: HdrHistogram keeps it in the top bucket
    for (const auto encoding : {mlt::hdr_encoding::uncompressed, mlt::hdr_encoding::compressed}) {
        const std::string text = mlt::to_hdr_base64(h, encoding);
        CHECK(text.rfind(encoding == mlt::hdr_encoding::compressed ? "HISTFAAA" : "HISTEwAA", 0) == 0);
        const H back = mlt::from_hdr_base64(text);
        CHECK(back.count() == h.count());
        CHECK(same_buckets(back, h));
        CHECK(mlt::to_hdr_base64(back, encoding) == text);  // stable under re-encoding
        // min/max/mean come back at bucket resolution; percentiles within it.
        CHECK(back.min() == 0ns);
        CHECK(back.max() == nanoseconds{1h});
        CHECK(back.saturated() == 0);
        CHECK(std::abs(static_cast<double>((back.percentile(99) - h.percentile(99)).count())) <=
              static_cast<double>(h.percentile(99).count()) / 1024);
        CHECK(mlt::json(back).get<H>() == back);  // what it rebuilt is self-consistent
    }
    CHECK(mlt::from_hdr_base64(mlt::to_hdr_base64(H{})) == H{});

    // Large counts in every bucket: > 65535 bytes, so the zlib stream needs several stored blocks.
    H dense;
    for (std::size_t i = 0; i < H::counts_len; ++i)
        if (H::lowest_equivalent_us(i) <= H::highest_trackable_us)
            dense.record_n(us(H::lowest_equivalent_us(i)), (std::uint64_t{1} << 40) + i);
    const auto bytes = mlt::encode_hdr_v2(dense);
    CHECK(bytes.size() > 2 * 65535);
    const H dense_back = mlt::decode_hdr_v2(bytes);
    CHECK(same_buckets(dense_back, dense));
    CHECK(dense_back.count() == dense.count());
}

TEST_CASE("HdrHistogram V2: malformed input is rejected with a reason") {
    H h;
    h.record(1us);
    h.record(1000us);
    const auto raw = mlt::encode_hdr_v2(h, mlt::hdr_encoding::uncompressed);
    const auto packed = mlt::encode_hdr_v2(h);
    REQUIRE(hdr_rejection(raw) == "(accepted)");
    REQUIRE(hdr_rejection(packed) == "(accepted)");

    auto v = raw;
    v[3] = 0x01;  // V1 cookie
    CHECK(hdr_rejection(v).find("is not a V2 encoding") != std::string::npos);
    CHECK(hdr_rejection({0x1c, 0x84}).find("too short") != std::string::npos);
    v = raw;
    v.pop_back();
    CHECK(hdr_rejection(v).find("payload length") != std::string::npos);
    v = raw;
    v[15] = 2;  // 2 significant digits
    CHECK(hdr_rejection(v).find("significant digits is 2") != std::string::npos);
    v = raw;
    v[31] = 0x01;  // another highest trackable value
    CHECK(hdr_rejection(v).find("highest trackable value") != std::string::npos);
    v = raw;
    v[11] = 1;  // normalizing index offset
    CHECK(hdr_rejection(v).find("normalizing index offset") != std::string::npos);
    v = raw;
    v.back() = 0x82;  // last LEB128 byte says "more follows"
    CHECK(hdr_rejection(v).find("truncated LEB128") != std::string::npos);
    v = raw;
    for (const std::uint8_t b : {0xdf, 0xd4, 0x03}) v.push_back(b);  // 30000 zeros (ZigZag 59999): past the end
    v[7] = static_cast<std::uint8_t>(v.size() - 40);
    CHECK(hdr_rejection(v).find("goes past the last bucket") != std::string::npos);

    v = packed;
    v[v.size() - 1] ^= 0xff;
    CHECK(hdr_rejection(v).find("adler32") != std::string::npos);
    v = packed;
    v[10] = 0x03;  // final block of type 1 (fixed Huffman)
    CHECK(hdr_rejection(v).find("block type 1") != std::string::npos);
    v = packed;
    v[8] = 0x79;  // not a zlib header
    CHECK(hdr_rejection(v).find("not a zlib stream") != std::string::npos);
    v = packed;
    v[7] += 1;  // compressed length mismatch
    CHECK(hdr_rejection(v).find("compressed length") != std::string::npos);

    CHECK_THROWS_WITH_AS((void)mlt::from_hdr_base64("HIST*AAA"), doctest::Contains("invalid base64"),
                         std::invalid_argument);
    CHECK_THROWS_AS((void)mlt::from_hdr_base64("HISTE"), std::invalid_argument);
}

// ---- found by fuzzing (issue 15) ------------------------------------------------------------

namespace {

// An uncompressed V2 encoding of `payload` (ZigZag LEB128 values, as put_zigzag writes them).
std::vector<std::uint8_t> hdr_raw(const std::vector<std::int64_t>& values) {
    std::vector<std::uint8_t> out = mlt::encode_hdr_v2(H{}, mlt::hdr_encoding::uncompressed);
    out.resize(40);
    for (const std::int64_t value : values) {
        std::uint64_t v = (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63);
        for (; v >= 0x80; v >>= 7) out.push_back(static_cast<std::uint8_t>((v & 0x7f) | 0x80));
        out.push_back(static_cast<std::uint8_t>(v));
    }
    const std::size_t n = out.size() - 40;
    for (int k = 0; k < 4; ++k) out[4 + static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(n >> (24 - 8 * k));
    return out;
}

}  // namespace

TEST_CASE("HdrHistogram V2: counts above the top trackable bucket fold into it, as record() does") {
    // HdrHistogram's counts array runs past 1 hour (to the end of its last bucket): a Java
    // histogram can hold values up to ~4295 s there. They decoded, then encode_hdr_v2 dropped
    // them (109 counts became 108). Now they land in the top bucket and count as saturated(),
    // exactly like recording a value above an hour.
    const std::size_t top = H::index_of_us(H::highest_trackable_us);
    const std::size_t above = top + 5;
    REQUIRE(above < H::counts_len);
    const auto bytes = hdr_raw({-1000, 108, -static_cast<std::int64_t>(above - 1001), 1});
    const H h = mlt::decode_hdr_v2(bytes);
    CHECK(h.count() == 109);
    CHECK(h.count_at_index(1000) == 108);
    CHECK(h.count_at_index(top) == 1);
    CHECK(h.count_at_index(above) == 0);
    CHECK(h.saturated() == 1);
    CHECK(h.max() == nanoseconds{static_cast<std::int64_t>(H::highest_equivalent_us(above) * 1000)});
    CHECK(h.max() > 1h);
    CHECK(mlt::json(h).get<H>() == h);  // self-consistent, as record() would have left it

    const H back = mlt::decode_hdr_v2(mlt::encode_hdr_v2(h));
    CHECK(back.count() == 109);
    CHECK(same_buckets(back, h));
    CHECK(mlt::encode_hdr_v2(back) == mlt::encode_hdr_v2(h));  // stable from here on

    // The same, recorded: a value above an hour is clamped into the top bucket.
    H recorded;
    recorded.record_n(1000us, 108);
    recorded.record(us(H::lowest_equivalent_us(above)));
    CHECK(same_buckets(recorded, h));
    CHECK(recorded.saturated() == h.saturated());
}

namespace {

mlt::load_report sample_report() {
    mlt::load_report r;
    r.run_id = "r1";
    r.started_at = "2026-11-23T14:00:00Z";
    r.duration_s = 2.5;
    r.workload = "open";
    r.server = "python3 echo_server.py";
    r.transport = "stdio";
    for (int i = 0; i < 100; ++i) {
        r.overall.outcomes.add(mlt::outcome::ok);
        r.overall.histogram.record(us(100 + static_cast<std::uint64_t>(i)));
    }
    r.overall.finalize();
    r.per_tool["echo"] = r.overall;
    r.per_method["tools/call"] = r.overall;
    for (int i = 0; i < 3; ++i)
        r.timeline.push_back({.at_s = static_cast<double>(i), .completed = 33, .errors = 0, .in_flight = 1});
    mlt::stage_report stage;
    stage.name = "ramp";
    stage.target = 50;
    stage.duration_s = 2.5;
    stage.stats = r.overall;
    r.stages.push_back(stage);
    r.breaking_stage = 0;
    mlt::server_process_report p;
    p.pid = 4242;
    p.stats.peak_rss_mb = 12.5;
    p.stats.peak_fds = 9;
    p.stats.samples = 2;
    p.samples.push_back({.at = 1ms, .pid = 4242, .rss_mb = 12.5, .cpu_pct = 3, .open_fds = 9, .threads = 2});
    mlt::leak_analysis leak;
    leak.resource = "rss_mb";
    leak.verdict = mlt::leak_verdict::no_leak;
    leak.fit.points = 2;
    p.leaks.push_back(leak);
    r.processes.push_back(p);
    r.violations.push_back({"p99", "<= 1 ns", "0.2 ms", "too slow"});
    r.passed = false;
    return r;
}

std::string report_rejection(const mlt::json& j) {
    try {
        (void)j.get<mlt::load_report>();
    } catch (const std::invalid_argument& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("wrong exception type: ") + e.what();
    }
    return "(accepted)";
}

}  // namespace

TEST_CASE("report JSON: every number is range-checked and a bad one is named by its path") {
    // Integer fields went through nlohmann's unchecked double -> uint64_t conversion: 1e300 was
    // undefined behaviour (UBSan float-cast-overflow) and -1 became 18446744073709551615.
    const mlt::json good = sample_report();
    REQUIRE(report_rejection(good) == "(accepted)");
    CHECK(mlt::json(good.get<mlt::load_report>()) == good);

    const auto with = [&](const mlt::json::json_pointer& at, const mlt::json& value) {
        mlt::json j = good;
        j[at] = value;
        return report_rejection(j);
    };
    using ptr = mlt::json::json_pointer;
    CHECK(with(ptr("/per_tool/echo/outcomes/ok"), -1) ==
          "report.per_tool[\"echo\"].outcomes.ok: -1 is not a non-negative integer");
    CHECK(with(ptr("/iterations_started"), 1e300) ==
          "report.iterations_started: 1e+300 is not a non-negative integer");
    CHECK(with(ptr("/dropped"), 2.5) == "report.dropped: 2.5 is not a non-negative integer");
    CHECK(with(ptr("/timeline/2/completed"), -3) ==
          "report.timeline[2].completed: -3 is not a non-negative integer");
    CHECK(with(ptr("/processes/0/stats/peak_fds"), 5'000'000'000LL) ==
          "report.processes[0].stats.peak_fds: 5000000000 is not an integer from 0 to 4294967295");
    CHECK(with(ptr("/processes/0/samples/0/pid"), -7) ==
          "report.processes[0].samples[0].pid: -7 is not an integer from 0 to 2147483647");
    CHECK(with(ptr("/processes/0/leaks/0/fit/points"), -1) ==
          "report.processes[0].leaks[0].fit.points: -1 is not a non-negative integer");
    CHECK(with(ptr("/duration_s"), -1.5) == "report.duration_s: -1.5 is not a non-negative number");
    CHECK(with(ptr("/stages/0/dropped"), -1) == "report.stages[0].dropped: -1 is not a non-negative integer");
    CHECK(with(ptr("/breaking_stage"), 1) == "report.breaking_stage: 1 is not the index of a stage (0 to 0)");
    CHECK(with(ptr("/generator/late_sends"), 1e20) ==
          "report.generator.late_sends: 1e+20 is not a non-negative integer");
    CHECK(with(ptr("/run_id"), 5) == "report.run_id: 5 is not a string");
    CHECK(with(ptr("/passed"), "yes") == "report.passed: \"yes\" is not a boolean");
    CHECK(with(ptr("/processes/0/leaks/0/verdict"), "maybe") ==
          "report.processes[0].leaks[0].verdict: \"maybe\" is not one of no_leak, leak, indeterminate, "
          "insufficient_data");
    CHECK(with(ptr("/overall/histogram/count"), 99).starts_with("report.overall.histogram: latency_histogram JSON:"));
    CHECK(with(ptr("/generator/send_lag/p99_ms"), -1).starts_with("report.generator.send_lag: latency_summary JSON:"));
    mlt::json missing = good;
    missing.erase("overall");
    CHECK(report_rejection(missing) == "report.overall is missing");
    CHECK(report_rejection(mlt::json(5)).starts_with("not an mcp-loadtest load report"));
    CHECK(report_rejection(mlt::json::array()).starts_with("not an mcp-loadtest load report"));
}

TEST_CASE("JSON: a latency_summary reads back whatever durations it holds") {
    // The summary of a histogram holding nanoseconds::max() (which its JSON form accepts) wrote
    // 9223372036854.775 ms and could not read it back ("must be a non-negative number").
    H h;
    h.record(nanoseconds::max());
    h.record(1ms);
    const auto s = h.summary();
    REQUIRE(s.max == nanoseconds::max());
    const auto back = mlt::json::parse(mlt::json(s).dump()).get<mlt::latency_summary>();
    CHECK(back.max == nanoseconds::max());
    CHECK(back.min == 1ms);
    // Exact up to 2^51 ns (26 days).
    for (const std::int64_t v : {std::int64_t{0}, std::int64_t{1}, std::int64_t{999'999}, std::int64_t{1'234'567'891},
                                 (std::int64_t{1} << 51) - 1, (std::int64_t{1} << 51) - 12'345}) {
        mlt::latency_summary one;
        one.count = 1;
        one.min = one.max = one.mean = one.p50 = one.p90 = one.p95 = one.p99 = one.p999 = nanoseconds{v};
        CHECK(mlt::json::parse(mlt::json(one).dump()).get<mlt::latency_summary>() == one);
    }
    mlt::json over = s;
    over["max_ms"] = std::nextafter(static_cast<double>(nanoseconds::max().count()) / 1e6, 1e300);  // just above
    CHECK_THROWS_WITH_AS((void)over.get<mlt::latency_summary>(), doctest::Contains("\"max_ms\" must be"),
                         std::invalid_argument);
}

TEST_CASE("HdrHistogram V2: counts the format cannot carry are refused, never changed") {
    // HdrHistogram counts are signed 64-bit. A bucket above 2^63-1 (reachable through JSON or
    // merges, never by recording) was silently written as 2^63-1.
    constexpr std::uint64_t big = std::uint64_t{1} << 63;
    const mlt::json j = {{"unit", "us"},          {"lowest", 1},        {"highest", 3'600'000'000ULL},
                         {"significant_digits", 3}, {"count", big},       {"min_ns", 10'000},
                         {"max_ns", 10'000},       {"sum_ns", ~0ULL},    {"saturated", 0},
                         {"buckets", {{10, big}}}};
    const H h = j.get<H>();
    CHECK_THROWS_WITH_AS((void)mlt::encode_hdr_v2(h), doctest::Contains("more than the format's 2^63-1"),
                         std::invalid_argument);
    // Folding the counts above the top bucket into it must not overflow it either.
    const std::size_t top = H::index_of_us(H::highest_trackable_us);
    const auto folded = hdr_raw({-static_cast<std::int64_t>(top), std::int64_t{1} << 62, std::int64_t{1} << 62});
    CHECK(hdr_rejection(folded).find("more than the format's 2^63-1") != std::string::npos);
}
