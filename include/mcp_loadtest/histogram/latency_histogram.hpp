// The latency histogram itself: HdrHistogram's exact bucket layout, O(1) recording, exact
// merging. Its JSON form is in histogram/json.hpp, its HdrHistogram V2 codec in
// histogram/hdr_v2.hpp; <mcp_loadtest/histogram.hpp> brings all three.
//
// Values are recorded in whole microseconds (HdrHistogram's convention for latencies, with
// lowest discernible value 1 us, highest trackable value 1 hour, 3 significant digits), so every
// figure derived from the buckets is what HdrHistogram itself would report, times 1000. Count,
// min, max and mean are kept exactly, in nanoseconds, alongside the buckets.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace mcp_loadtest {

/// What reports print for one set of latencies. A plain aggregate: copy it, compare it.
struct latency_summary {
    std::uint64_t count = 0;
    std::chrono::nanoseconds min{0}, max{0}, mean{0}, stddev{0}, p50{0}, p90{0}, p95{0}, p99{0}, p999{0};
    friend bool operator==(const latency_summary&, const latency_summary&) = default;
};

namespace detail {

struct histogram_access;

[[nodiscard]] constexpr int ceil_log2(std::uint64_t v) noexcept {
    int m = 0;
    while ((std::uint64_t{1} << m) < v) ++m;
    return m;
}

[[nodiscard]] constexpr std::uint64_t pow10(int digits) noexcept {
    std::uint64_t v = 1;
    for (int i = 0; i < digits; ++i) v *= 10;
    return v;
}

// AbstractHistogram.getBucketsNeededToCoverValue() of HdrHistogram (Java).
[[nodiscard]] constexpr int hdr_buckets_needed(std::uint64_t highest, int sub_bucket_count,
                                               int unit_magnitude) noexcept {
    std::uint64_t smallest_untrackable = static_cast<std::uint64_t>(sub_bucket_count) << unit_magnitude;
    int buckets = 1;
    while (smallest_untrackable <= highest) {
        if (smallest_untrackable > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / 2)
            return buckets + 1;
        smallest_untrackable <<= 1;
        ++buckets;
    }
    return buckets;
}

[[nodiscard]] constexpr std::uint64_t add_saturating(std::uint64_t a, std::uint64_t b) noexcept {
    return b > std::numeric_limits<std::uint64_t>::max() - a ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

[[nodiscard]] constexpr std::uint64_t mul_saturating(std::uint64_t a, std::uint64_t b) noexcept {
    return a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a ? std::numeric_limits<std::uint64_t>::max()
                                                                      : a * b;
}

}  // namespace detail

/// A latency histogram laid out exactly like HdrHistogram(1, 3'600'000'000, 3) over microseconds.
///
/// Storage: the 23,552 counters (184 KiB) are allocated on the first record or merge, not in the
/// constructor, because reports hold one histogram per tool and per method and most stay small
/// or empty. That first record is the only one that allocates (a failure there terminates, as
/// any allocation in a noexcept function does); every later record is O(1) and allocation-free.
/// reset() keeps the storage, so an interval histogram is reused without reallocating.
///
/// Not thread-safe: record into one histogram per thread (or per session) and merge() them.
class latency_histogram {
public:
    // HdrHistogram's layout parameters and the figures its init() derives from them.
    static constexpr std::uint64_t lowest_discernible_us = 1;
    static constexpr std::uint64_t highest_trackable_us = 3'600'000'000;  // 1 hour
    static constexpr int significant_digits = 3;
    static constexpr int unit_magnitude = std::bit_width(lowest_discernible_us) - 1;  // floor(log2(lowest))
    static constexpr int sub_bucket_half_count_magnitude =
        std::max(detail::ceil_log2(2 * detail::pow10(significant_digits)), 1) - 1;
    static constexpr int sub_bucket_count = 1 << (sub_bucket_half_count_magnitude + 1);
    static constexpr int sub_bucket_half_count = sub_bucket_count / 2;
    static constexpr int bucket_count =
        detail::hdr_buckets_needed(highest_trackable_us, sub_bucket_count, unit_magnitude);
    /// HdrHistogram's counts_len: (bucket_count + 1) * sub_bucket_half_count.
    static constexpr std::size_t counts_len = static_cast<std::size_t>(bucket_count + 1) * sub_bucket_half_count;
    static_assert(unit_magnitude == 0 && sub_bucket_count == 2048 && bucket_count == 22 && counts_len == 23552);

    latency_histogram() = default;

    /// Records one duration. Sub-microsecond remainders are truncated (999 ns records as 0 us, in
    /// bucket 0); a negative duration records as 0; one above an hour records as an hour and is
    /// also counted in saturated(). min/max/mean keep the exact nanoseconds either way.
    MCP_LOADTEST_DECL void record(std::chrono::nanoseconds d) noexcept;

    /// Records the same duration `n` times, in O(1).
    MCP_LOADTEST_DECL void record_n(std::chrono::nanoseconds d, std::uint64_t n) noexcept;

    /// Adds everything `other` recorded: the result is bucket-for-bucket what recording both
    /// streams into one histogram gives, with exact count, min, max and sum.
    MCP_LOADTEST_DECL void merge(const latency_histogram& other) noexcept;

    /// Forgets everything recorded; keeps the storage for reuse.
    MCP_LOADTEST_DECL void reset() noexcept;

    [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
    [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
    /// How many recorded values exceeded the highest trackable value (they sit in the top bucket).
    [[nodiscard]] std::uint64_t saturated() const noexcept { return saturated_; }
    /// Exact sum of the recorded nanoseconds; saturates at 2^64-1 (584 years of total latency).
    [[nodiscard]] std::uint64_t sum_ns() const noexcept { return sum_ns_; }
    /// Whether the counters have been allocated (the first record or merge does it).
    [[nodiscard]] bool storage_allocated() const noexcept { return !counts_.empty(); }

    /// Exact smallest recorded duration; 0 when empty.
    [[nodiscard]] std::chrono::nanoseconds min() const noexcept { return to_ns(count_ == 0 ? 0 : min_ns_); }
    /// Exact largest recorded duration (not clamped to an hour); 0 when empty.
    [[nodiscard]] std::chrono::nanoseconds max() const noexcept { return to_ns(max_ns_); }

    /// Exact mean of the recorded nanoseconds, rounded to the nearest nanosecond; 0 when empty.
    [[nodiscard]] MCP_LOADTEST_DECL std::chrono::nanoseconds mean() const noexcept;

    /// Standard deviation as HdrHistogram's getStdDeviation() computes it: the root-mean-square
    /// deviation of bucket midpoints (medianEquivalentValue) from their count-weighted mean, so it
    /// carries the buckets' 0.1 % resolution; times 1000 to nanoseconds. 0 when empty.
    [[nodiscard]] MCP_LOADTEST_DECL std::chrono::nanoseconds stddev() const noexcept;

    /// The p-th percentile: the smallest recorded value that fewer than (100 - p)% of the
    /// values exceed, i.e. the floor(p% * count) + 1-th smallest, reported as the highest
    /// value equivalent to its bucket (times 1000, clamped to [min, max]; in the top non-empty
    /// bucket it is max() itself). This is HdrHistogram's getValueAtPercentile() except when
    /// p% * count is a whole number, where HdrHistogram takes the value one rank lower: with
    /// exactly 1 % of calls at 200 ms, p99 here is 200 ms, not the fastest of the other 99 %.
    /// A load test gates on the tail, so at that tie it reports the tail. p is clamped to
    /// [0, 100]; p = 0 gives min(); NaN is read as 0. An empty histogram gives 0.
    [[nodiscard]] MCP_LOADTEST_DECL std::chrono::nanoseconds percentile(double p) const noexcept;

    /// Count, exact min/max/mean, stddev and p50/p90/p95/p99/p99.9, in one pass over the buckets.
    [[nodiscard]] MCP_LOADTEST_DECL latency_summary summary() const noexcept;

    /// Count in bucket `index` (< counts_len); 0 before anything was recorded.
    [[nodiscard]] std::uint64_t count_at_index(std::size_t index) const noexcept {
        return counts_.empty() || index >= counts_len ? 0 : counts_[index];
    }

    /// Calls f(index, count) for each non-empty bucket in ascending order (sparse serialization).
    template <class F>
    void for_each_bucket(F&& f) const {
        if (count_ == 0) return;
        const std::size_t hi = max_index();
        for (std::size_t i = min_index(); i <= hi; ++i)
            if (counts_[i] != 0) f(i, counts_[i]);
    }

    // HdrHistogram's value <-> index mapping (countsArrayIndex, valueFromIndex, ...), in us.

    /// Bucket index of a value in microseconds; `us` must not exceed highest_trackable_us.
    [[nodiscard]] static constexpr std::size_t index_of_us(std::uint64_t us) noexcept {
        const int bucket = leading_zero_count_base - std::countl_zero(us | sub_bucket_mask);
        const auto sub_bucket = static_cast<int>(us >> (bucket + unit_magnitude));
        return static_cast<std::size_t>(((bucket + 1) << sub_bucket_half_count_magnitude) +
                                        (sub_bucket - sub_bucket_half_count));
    }
    /// Smallest value (us) that lands in bucket `index`.
    [[nodiscard]] static constexpr std::uint64_t lowest_equivalent_us(std::size_t index) noexcept {
        int bucket = static_cast<int>(index >> sub_bucket_half_count_magnitude) - 1;
        int sub_bucket = static_cast<int>(index & (sub_bucket_half_count - 1)) + sub_bucket_half_count;
        if (bucket < 0) {
            sub_bucket -= sub_bucket_half_count;
            bucket = 0;
        }
        return static_cast<std::uint64_t>(sub_bucket) << (bucket + unit_magnitude);
    }
    /// Number of microsecond values that share bucket `index` (1 below 2048 us, then doubling).
    [[nodiscard]] static constexpr std::uint64_t bucket_width_us(std::size_t index) noexcept {
        const int bucket = std::max(static_cast<int>(index >> sub_bucket_half_count_magnitude) - 1, 0);
        return std::uint64_t{1} << (bucket + unit_magnitude);
    }
    [[nodiscard]] static constexpr std::uint64_t highest_equivalent_us(std::size_t index) noexcept {
        return lowest_equivalent_us(index) + bucket_width_us(index) - 1;
    }
    [[nodiscard]] static constexpr std::uint64_t median_equivalent_us(std::size_t index) noexcept {
        return lowest_equivalent_us(index) + (bucket_width_us(index) >> 1);
    }
    /// Bucket index a duration records into (after truncation to us and clamping).
    [[nodiscard]] static constexpr std::size_t index_of(std::chrono::nanoseconds d) noexcept {
        const std::uint64_t ns = d.count() > 0 ? static_cast<std::uint64_t>(d.count()) : 0;
        return index_of_us(std::min(ns / 1000, highest_trackable_us));
    }

    /// Exact equality: same count, saturated, sum, min, max and buckets.
    friend bool operator==(const latency_histogram& a, const latency_histogram& b) noexcept {
        if (a.count_ != b.count_ || a.saturated_ != b.saturated_ || a.sum_ns_ != b.sum_ns_ || a.min() != b.min() ||
            a.max() != b.max())
            return false;
        if (a.count_ == 0) return true;
        return a.counts_ == b.counts_;  // both allocated: a non-empty histogram always is
    }

private:
    friend struct detail::histogram_access;

    static constexpr std::uint64_t sub_bucket_mask = static_cast<std::uint64_t>(sub_bucket_count - 1) << unit_magnitude;
    static constexpr int leading_zero_count_base = 64 - unit_magnitude - sub_bucket_half_count_magnitude - 1;
    static constexpr std::uint64_t no_min = std::numeric_limits<std::uint64_t>::max();

    static MCP_LOADTEST_DECL std::chrono::nanoseconds to_ns(std::uint64_t ns) noexcept;

    void allocate() { counts_.assign(counts_len, 0); }
    MCP_LOADTEST_NOINLINE void record_first(std::chrono::nanoseconds d) noexcept {  // see record()
        allocate();
        record(d);
    }

    [[nodiscard]] std::size_t min_index() const noexcept {
        return index_of_us(std::min(min_ns_ / 1000, highest_trackable_us));
    }
    [[nodiscard]] std::size_t max_index() const noexcept {
        return index_of_us(std::min(max_ns_ / 1000, highest_trackable_us));
    }

    // The 1-based rank of the p-th percentile (count_ > 0): floor(p% * count) + 1. A product
    // within rounding of a whole number counts as that number (0.29 * 100 is 28.999999999999996
    // in doubles and 0.07 * 100 is 7.000000000000001: both are exact ties).
    [[nodiscard]] MCP_LOADTEST_DECL std::uint64_t rank_at(double p) const noexcept;

    // For p > 0: the highest equivalent value of bucket `index`, in ns, clamped to [min, max].
    [[nodiscard]] MCP_LOADTEST_DECL std::chrono::nanoseconds value_at_index(std::size_t index) const noexcept;

    std::vector<std::uint64_t> counts_;  // empty until the first record or merge
    std::uint64_t count_ = 0;
    std::uint64_t saturated_ = 0;
    std::uint64_t sum_ns_ = 0;
    std::uint64_t min_ns_ = no_min;
    std::uint64_t max_ns_ = 0;
};

namespace detail {

// Builds histograms from decoded data (JSON, HdrHistogram encodings) after validation.
struct histogram_access {
    static MCP_LOADTEST_DECL latency_histogram make(std::vector<std::uint64_t> counts, std::uint64_t count, std::uint64_t saturated,
                                                    std::uint64_t sum_ns, std::uint64_t min_ns, std::uint64_t max_ns);
};

}  // namespace detail
}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/histogram/impl/latency_histogram.ipp>
#endif
