// Latency histogram with HdrHistogram's exact bucket layout: O(1) recording, exact merging,
// an exact mergeable JSON form, and HdrHistogram V2 (base64) encoding for its log tools.
//
// Values are recorded in whole microseconds (HdrHistogram's convention for latencies, with
// lowest discernible value 1 us, highest trackable value 1 hour, 3 significant digits), so every
// figure derived from the buckets is what HdrHistogram itself would report, times 1000. Count,
// min, max and mean are kept exactly, in nanoseconds, alongside the buckets.
#pragma once

#include <mcp_loadtest/detail/base64.hpp>
#include <mcp_loadtest/json.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
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
    void record(std::chrono::nanoseconds d) noexcept {
        const std::uint64_t ns = d.count() > 0 ? static_cast<std::uint64_t>(d.count()) : 0;
        std::uint64_t us = ns / 1000;
        if (us > highest_trackable_us) [[unlikely]] {
            us = highest_trackable_us;
            ++saturated_;
        }
        if (counts_.empty()) [[unlikely]]
            allocate();
        ++counts_[index_of_us(us)];
        ++count_;
        sum_ns_ = detail::add_saturating(sum_ns_, ns);
        min_ns_ = std::min(min_ns_, ns);
        max_ns_ = std::max(max_ns_, ns);
    }

    /// Records the same duration `n` times, in O(1).
    void record_n(std::chrono::nanoseconds d, std::uint64_t n) noexcept {
        if (n == 0) return;
        const std::uint64_t ns = d.count() > 0 ? static_cast<std::uint64_t>(d.count()) : 0;
        std::uint64_t us = ns / 1000;
        if (us > highest_trackable_us) [[unlikely]] {
            us = highest_trackable_us;
            saturated_ += n;
        }
        if (counts_.empty()) [[unlikely]]
            allocate();
        counts_[index_of_us(us)] += n;
        count_ += n;
        sum_ns_ = detail::add_saturating(sum_ns_, detail::mul_saturating(ns, n));
        min_ns_ = std::min(min_ns_, ns);
        max_ns_ = std::max(max_ns_, ns);
    }

    /// Adds everything `other` recorded: the result is bucket-for-bucket what recording both
    /// streams into one histogram gives, with exact count, min, max and sum.
    void merge(const latency_histogram& other) noexcept {
        if (other.count_ == 0) return;
        if (counts_.empty()) {
            counts_ = other.counts_;
        } else {
            const std::size_t hi = other.max_index();
            for (std::size_t i = other.min_index(); i <= hi; ++i) counts_[i] += other.counts_[i];
        }
        count_ += other.count_;
        saturated_ += other.saturated_;
        sum_ns_ = detail::add_saturating(sum_ns_, other.sum_ns_);
        min_ns_ = std::min(min_ns_, other.min_ns_);
        max_ns_ = std::max(max_ns_, other.max_ns_);
    }

    /// Forgets everything recorded; keeps the storage for reuse.
    void reset() noexcept {
        std::fill(counts_.begin(), counts_.end(), std::uint64_t{0});
        count_ = 0;
        saturated_ = 0;
        sum_ns_ = 0;
        min_ns_ = no_min;
        max_ns_ = 0;
    }

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
    [[nodiscard]] std::chrono::nanoseconds mean() const noexcept {
        if (count_ == 0) return std::chrono::nanoseconds{0};
        std::uint64_t q = sum_ns_ / count_;
        const std::uint64_t r = sum_ns_ % count_;
        if (r >= count_ - r) ++q;
        return to_ns(q);
    }

    /// Standard deviation as HdrHistogram's getStdDeviation() computes it: the root-mean-square
    /// deviation of bucket midpoints (medianEquivalentValue) from their count-weighted mean, so it
    /// carries the buckets' 0.1 % resolution; times 1000 to nanoseconds. 0 when empty.
    [[nodiscard]] std::chrono::nanoseconds stddev() const noexcept {
        if (count_ < 2) return std::chrono::nanoseconds{0};
        const std::size_t lo = min_index(), hi = max_index();
        double mean_mid = 0;
        for (std::size_t i = lo; i <= hi; ++i)
            if (counts_[i] != 0)
                mean_mid += static_cast<double>(median_equivalent_us(i)) * static_cast<double>(counts_[i]);
        mean_mid /= static_cast<double>(count_);
        double total = 0;
        for (std::size_t i = lo; i <= hi; ++i) {
            if (counts_[i] == 0) continue;
            const double dev = static_cast<double>(median_equivalent_us(i)) - mean_mid;
            total += dev * dev * static_cast<double>(counts_[i]);
        }
        return to_ns(static_cast<std::uint64_t>(std::llround(std::sqrt(total / static_cast<double>(count_)) * 1000.0)));
    }

    /// The p-th percentile: the smallest recorded value that fewer than (100 - p)% of the
    /// values exceed, i.e. the floor(p% * count) + 1-th smallest, reported as the highest
    /// value equivalent to its bucket (times 1000, clamped to [min, max]; in the top non-empty
    /// bucket it is max() itself). This is HdrHistogram's getValueAtPercentile() except when
    /// p% * count is a whole number, where HdrHistogram takes the value one rank lower: with
    /// exactly 1 % of calls at 200 ms, p99 here is 200 ms, not the fastest of the other 99 %.
    /// A load test gates on the tail, so at that tie it reports the tail. p is clamped to
    /// [0, 100]; p = 0 gives min(); NaN is read as 0. An empty histogram gives 0.
    [[nodiscard]] std::chrono::nanoseconds percentile(double p) const noexcept {
        if (count_ == 0) return std::chrono::nanoseconds{0};
        if (!(p > 0.0)) return min();  // HdrHistogram's lowest equivalent value, clamped to min
        const std::uint64_t rank = rank_at(p);
        std::uint64_t seen = 0;
        const std::size_t hi = max_index();
        std::size_t i = min_index();
        for (; i < hi; ++i) {
            seen += counts_[i];
            if (seen >= rank) break;
        }
        return value_at_index(i);
    }

    /// Count, exact min/max/mean, stddev and p50/p90/p95/p99/p99.9, in one pass over the buckets.
    [[nodiscard]] latency_summary summary() const noexcept {
        latency_summary s;
        s.count = count_;
        if (count_ == 0) return s;
        s.min = min();
        s.max = max();
        s.mean = mean();
        s.stddev = stddev();
        const std::uint64_t ranks[] = {rank_at(50.0), rank_at(90.0), rank_at(95.0), rank_at(99.0), rank_at(99.9)};
        std::chrono::nanoseconds* const out[] = {&s.p50, &s.p90, &s.p95, &s.p99, &s.p999};
        std::size_t next = 0;
        std::uint64_t seen = 0;
        const std::size_t hi = max_index();
        for (std::size_t i = min_index(); i <= hi && next < std::size(ranks); ++i) {
            seen += counts_[i];
            for (; next < std::size(ranks) && seen >= ranks[next]; ++next) *out[next] = value_at_index(i);
        }
        return s;
    }

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

    static std::chrono::nanoseconds to_ns(std::uint64_t ns) noexcept {
        constexpr auto most = static_cast<std::uint64_t>(std::numeric_limits<std::chrono::nanoseconds::rep>::max());
        return std::chrono::nanoseconds{static_cast<std::chrono::nanoseconds::rep>(std::min(ns, most))};
    }

    void allocate() { counts_.assign(counts_len, 0); }

    [[nodiscard]] std::size_t min_index() const noexcept {
        return index_of_us(std::min(min_ns_ / 1000, highest_trackable_us));
    }
    [[nodiscard]] std::size_t max_index() const noexcept {
        return index_of_us(std::min(max_ns_ / 1000, highest_trackable_us));
    }

    // The 1-based rank of the p-th percentile (count_ > 0): floor(p% * count) + 1. A product
    // within rounding of a whole number counts as that number (0.29 * 100 is 28.999999999999996
    // in doubles and 0.07 * 100 is 7.000000000000001: both are exact ties).
    [[nodiscard]] std::uint64_t rank_at(double p) const noexcept {
        if (!(p > 0.0)) return 1;
        const double exact = std::min(p, 100.0) / 100.0 * static_cast<double>(count_);
        const double nearest = std::round(exact);
        const double whole = std::abs(exact - nearest) <= 1e-12 * std::max(1.0, exact) ? nearest : std::floor(exact);
        return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(whole) + 1, 1, count_);
    }

    // For p > 0: the highest equivalent value of bucket `index`, in ns, clamped to [min, max].
    [[nodiscard]] std::chrono::nanoseconds value_at_index(std::size_t index) const noexcept {
        if (index == max_index()) return to_ns(max_ns_);
        return to_ns(std::clamp(highest_equivalent_us(index) * 1000, min_ns_, max_ns_));
    }

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
    static latency_histogram make(std::vector<std::uint64_t> counts, std::uint64_t count, std::uint64_t saturated,
                                  std::uint64_t sum_ns, std::uint64_t min_ns, std::uint64_t max_ns) {
        latency_histogram h;
        if (count == 0) return h;
        h.counts_ = std::move(counts);
        h.count_ = count;
        h.saturated_ = saturated;
        h.sum_ns_ = sum_ns;
        h.min_ns_ = min_ns;
        h.max_ns_ = max_ns;
        return h;
    }
};

[[noreturn]] inline void bad_histogram_field(std::string_view what, std::string_view field, std::string_view expected,
                                             const json* got) {
    std::string msg(what);
    msg += ": \"";
    msg += field;
    msg += "\" must be ";
    msg += expected;
    if (got == nullptr) {
        msg += ", but it is missing";
    } else {
        std::string text = got->dump();
        if (text.size() > 60) text = text.substr(0, 57) + "...";
        msg += ", got ";
        msg += text;
    }
    throw std::invalid_argument(msg);
}

inline const json& histogram_field(const json& j, std::string_view what, const char* field, std::string_view expected) {
    const auto it = j.find(field);
    if (it == j.end()) bad_histogram_field(what, field, expected, nullptr);
    return *it;
}

inline std::uint64_t histogram_uint(const json& j, std::string_view what, const char* field,
                                    std::string_view expected = "a non-negative integer") {
    const json& v = histogram_field(j, what, field, expected);
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
    bad_histogram_field(what, field, expected, &v);
}

}  // namespace detail

/// Exact, mergeable, sparse JSON form:
/// {"unit":"us","lowest":1,"highest":3600000000,"significant_digits":3,"count":..,"min_ns":..,
///  "max_ns":..,"sum_ns":..,"saturated":..,"buckets":[[index,count],...]} (non-empty buckets only).
inline void to_json(json& j, const latency_histogram& h) {
    json buckets = json::array();
    h.for_each_bucket([&](std::size_t index, std::uint64_t count) { buckets.push_back(json::array({index, count})); });
    j = json{{"unit", "us"},
             {"lowest", latency_histogram::lowest_discernible_us},
             {"highest", latency_histogram::highest_trackable_us},
             {"significant_digits", latency_histogram::significant_digits},
             {"count", h.count()},
             {"min_ns", static_cast<std::uint64_t>(h.min().count())},
             {"max_ns", static_cast<std::uint64_t>(h.max().count())},
             {"sum_ns", h.sum_ns()},
             {"saturated", h.saturated()},
             {"buckets", std::move(buckets)}};
}

/// Reads the form to_json() writes. Throws std::invalid_argument naming the offending field
/// when the layout differs, an index is out of range or repeated, the bucket counts do not add
/// up to "count", or min/max/sum/saturated contradict the buckets. Unknown keys are ignored.
inline void from_json(const json& j, latency_histogram& out) {
    constexpr std::string_view what = "latency_histogram JSON";
    using H = latency_histogram;
    if (!j.is_object()) detail::bad_histogram_field(what, "(top level)", "an object", &j);
    const json& unit = detail::histogram_field(j, what, "unit", "\"us\"");
    if (unit != "us") detail::bad_histogram_field(what, "unit", "\"us\"", &unit);
    const auto layout = [&](const char* field, std::uint64_t expected) {
        const std::string text = std::to_string(expected) + " (the only layout this build reads)";
        if (detail::histogram_uint(j, what, field, text) != expected)
            detail::bad_histogram_field(what, field, text, &j.at(field));
    };
    layout("lowest", H::lowest_discernible_us);
    layout("highest", H::highest_trackable_us);
    layout("significant_digits", H::significant_digits);
    const std::uint64_t count = detail::histogram_uint(j, what, "count");
    const std::uint64_t min_ns = detail::histogram_uint(j, what, "min_ns");
    const std::uint64_t max_ns = detail::histogram_uint(j, what, "max_ns");
    const std::uint64_t sum_ns = detail::histogram_uint(j, what, "sum_ns");
    const std::uint64_t saturated = detail::histogram_uint(j, what, "saturated");
    constexpr auto ns_limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (max_ns > ns_limit) detail::bad_histogram_field(what, "max_ns", "at most 2^63-1", &j.at("max_ns"));

    const json& buckets = detail::histogram_field(j, what, "buckets", "an array of [index, count] pairs");
    if (!buckets.is_array()) detail::bad_histogram_field(what, "buckets", "an array of [index, count] pairs", &buckets);
    std::vector<std::uint64_t> counts(H::counts_len, 0);
    std::uint64_t total = 0;
    std::size_t lowest = H::counts_len, highest = 0;
    for (const json& pair : buckets) {
        const auto uint_at = [&](std::size_t k) -> std::uint64_t {
            const json& v = pair[k];
            if (v.is_number_unsigned()) return v.get<std::uint64_t>();
            if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
                return static_cast<std::uint64_t>(v.get<std::int64_t>());
            detail::bad_histogram_field(what, "buckets", "[index, count] pairs of non-negative integers", &pair);
        };
        if (!pair.is_array() || pair.size() != 2)
            detail::bad_histogram_field(what, "buckets", "[index, count] pairs of non-negative integers", &pair);
        const std::uint64_t index = uint_at(0), c = uint_at(1);
        if (index >= H::counts_len)
            detail::bad_histogram_field(what, "buckets", "indices below " + std::to_string(H::counts_len), &pair);
        if (counts[index] != 0) detail::bad_histogram_field(what, "buckets", "free of repeated indices", &pair);
        if (c == 0) continue;
        if (c > std::numeric_limits<std::uint64_t>::max() - total)
            detail::bad_histogram_field(what, "buckets", "counts whose sum fits in 64 bits", &pair);
        counts[index] = c;
        total += c;
        lowest = std::min<std::size_t>(lowest, index);
        highest = std::max<std::size_t>(highest, index);
    }
    if (total != count)
        detail::bad_histogram_field(what, "count", "the sum of the bucket counts (" + std::to_string(total) + ")",
                                    &j.at("count"));
    if (count == 0) {
        for (const char* field : {"min_ns", "max_ns", "sum_ns", "saturated"})
            if (j.at(field) != 0) detail::bad_histogram_field(what, field, "0 when count is 0", &j.at(field));
        out = latency_histogram{};
        return;
    }
    if (min_ns > max_ns) detail::bad_histogram_field(what, "min_ns", "at most max_ns", &j.at("min_ns"));
    if (H::index_of(std::chrono::nanoseconds{static_cast<std::int64_t>(min_ns)}) != lowest)
        detail::bad_histogram_field(what, "min_ns",
                                    "a value in the lowest non-empty bucket (" + std::to_string(lowest) + ")",
                                    &j.at("min_ns"));
    if (H::index_of(std::chrono::nanoseconds{static_cast<std::int64_t>(max_ns)}) != highest)
        detail::bad_histogram_field(what, "max_ns",
                                    "a value in the highest non-empty bucket (" + std::to_string(highest) + ")",
                                    &j.at("max_ns"));
    const bool over = max_ns / 1000 > H::highest_trackable_us;
    const std::size_t top = H::index_of_us(H::highest_trackable_us);
    if (saturated > counts[top] || (saturated > 0) != over)
        detail::bad_histogram_field(what, "saturated",
                                    over ? "between 1 and the top bucket's count when max_ns exceeds an hour"
                                         : "0 when max_ns is within an hour",
                                    &j.at("saturated"));
    // Saturating products keep this right when the sum itself saturated at 2^64-1.
    if (sum_ns < detail::mul_saturating(min_ns, count) || sum_ns > detail::mul_saturating(max_ns, count))
        detail::bad_histogram_field(what, "sum_ns", "between count * min_ns and count * max_ns", &j.at("sum_ns"));
    out = detail::histogram_access::make(std::move(counts), count, saturated, sum_ns, min_ns, max_ns);
}

/// Summary as reports print it: {"count":n,"min_ms":..,"max_ms":..,"mean_ms":..,"stddev_ms":..,
/// "p50_ms":..,"p90_ms":..,"p95_ms":..,"p99_ms":..,"p999_ms":..}, durations in milliseconds.
inline void to_json(json& j, const latency_summary& s) {
    const auto ms = [](std::chrono::nanoseconds d) { return static_cast<double>(d.count()) / 1e6; };
    j = json{{"count", s.count},      {"min_ms", ms(s.min)}, {"max_ms", ms(s.max)}, {"mean_ms", ms(s.mean)},
             {"stddev_ms", ms(s.stddev)}, {"p50_ms", ms(s.p50)}, {"p90_ms", ms(s.p90)}, {"p95_ms", ms(s.p95)},
             {"p99_ms", ms(s.p99)},   {"p999_ms", ms(s.p999)}};
}

/// Reads to_json()'s form back, rounding milliseconds to the nearest nanosecond: exact for
/// durations up to 2^51 ns (26 days), within a few nanoseconds per 2^51 beyond, and any value
/// to_json wrote reads back (up to nanoseconds::max()). Throws std::invalid_argument naming a
/// missing or malformed field.
inline void from_json(const json& j, latency_summary& s) {
    constexpr std::string_view what = "latency_summary JSON";
    if (!j.is_object()) detail::bad_histogram_field(what, "(top level)", "an object", &j);
    // What to_json writes for nanoseconds::max(), computed the same way: the largest value read.
    constexpr double max_ms = static_cast<double>(std::numeric_limits<std::chrono::nanoseconds::rep>::max()) / 1e6;
    const auto ns = [&](const char* field) {
        constexpr std::string_view expected = "a non-negative number of milliseconds (at most 9223372036854.775)";
        const json& v = detail::histogram_field(j, what, field, expected);
        if (!v.is_number()) detail::bad_histogram_field(what, field, expected, &v);
        const double ms = v.get<double>();
        if (!(ms >= 0.0 && ms <= max_ms)) detail::bad_histogram_field(what, field, expected, &v);
        // Near the top, ms * 1e6 rounds up to 2^63, one past the largest count: that is max().
        const double count = ms * 1e6;
        return count >= 0x1p63 ? std::chrono::nanoseconds::max() : std::chrono::nanoseconds{std::llround(count)};
    };
    latency_summary r;
    r.count = detail::histogram_uint(j, what, "count");
    r.min = ns("min_ms");
    r.max = ns("max_ms");
    r.mean = ns("mean_ms");
    r.stddev = ns("stddev_ms");
    r.p50 = ns("p50_ms");
    r.p90 = ns("p90_ms");
    r.p95 = ns("p95_ms");
    r.p99 = ns("p99_ms");
    r.p999 = ns("p999_ms");
    s = r;
}

// ---------------------------------------------------------------------------------------------
// HdrHistogram V2 encoding, for HistogramLogReader, HistogramLogAnalyzer, hdr-plot and friends.
//
// Followed: HdrHistogram (Java) AbstractHistogram.encodeIntoByteBuffer / fillBufferFromCountsArray
// / encodeIntoCompressedByteBuffer, cross-checked with HdrHistogram_c src/hdr_histogram_log.c
// (hdr_encode_compressed, hdr_decode_compressed_v2) and src/hdr_encoding.c (zig_zag_encode_i64):
//
//   uncompressed, all big-endian, 40-byte header then payload:
//     int32 cookie      0x1c849313 = V2 base 0x1c849303 | 0x10 (the word-size nibble; both
//                       reference encoders write it, and decoders mask it off with & ~0xf0)
//     int32 payload length in bytes
//     int32 normalizing index offset (0)    int32 significant digits (3)
//     int64 lowest discernible value (1)    int64 highest trackable value (3600000000)
//     float64 integer-to-double conversion ratio (1.0)
//     payload: counts[0 .. index(max)] as ZigZag LEB128-64b9B (the 9th byte carries 8 bits);
//     a run of n >= 2 zero counts is written as -n (a single zero as 0, like the Java encoder;
//     HdrHistogram_c writes -1 there, and every decoder reads both).
//   compressed: int32 cookie 0x1c849314 (base 0x1c849304 | 0x10), int32 length of the zlib
//     stream, then a zlib stream (RFC 1950) of the uncompressed form. The stream here uses only
//     STORED deflate blocks (RFC 1951 3.2.4), so no zlib is needed; any inflater reads it.
// ---------------------------------------------------------------------------------------------

enum class hdr_encoding : std::uint8_t {
    uncompressed,  ///< V2 encoding (cookie 0x1c849313): what encodeIntoByteBuffer writes
    compressed,    ///< V2 compressed encoding (cookie 0x1c849314): what histogram log lines hold
};

inline constexpr std::uint32_t hdr_v2_encoding_cookie_base = 0x1c849303;
inline constexpr std::uint32_t hdr_v2_compressed_cookie_base = 0x1c849304;

namespace detail {

inline void put_be(std::vector<std::uint8_t>& out, std::uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

[[nodiscard]] inline std::uint64_t get_be(std::span<const std::uint8_t> in, std::size_t at, int bytes) noexcept {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | in[at + static_cast<std::size_t>(i)];
    return v;
}

[[nodiscard]] inline std::uint32_t get_le16(std::span<const std::uint8_t> in, std::size_t at) noexcept {
    return std::uint32_t{in[at]} | (std::uint32_t{in[at + 1]} << 8);
}

// zig_zag_encode_i64 of HdrHistogram_c / ZigZagEncoding.putLong of HdrHistogram Java.
inline void put_zigzag(std::vector<std::uint8_t>& out, std::int64_t signed_value) {
    std::uint64_t v = (static_cast<std::uint64_t>(signed_value) << 1) ^ static_cast<std::uint64_t>(signed_value >> 63);
    for (int i = 0; i < 8; ++i) {
        if ((v >> 7) == 0) {
            out.push_back(static_cast<std::uint8_t>(v));
            return;
        }
        out.push_back(static_cast<std::uint8_t>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<std::uint8_t>(v));  // 9th byte: all 8 remaining bits
}

[[nodiscard]] inline std::uint32_t adler32(std::span<const std::uint8_t> data) noexcept {
    std::uint32_t a = 1, b = 0;
    while (!data.empty()) {
        const std::size_t n = std::min<std::size_t>(data.size(), 5552);  // largest n without 32-bit overflow
        for (std::size_t i = 0; i < n; ++i) {
            a += data[i];
            b += a;
        }
        a %= 65521;
        b %= 65521;
        data = data.subspan(n);
    }
    return (b << 16) | a;
}

// A zlib stream of stored deflate blocks: header 0x78 0x01 (deflate, 32 KiB window, no
// dictionary, check bits making 0x7801 a multiple of 31), blocks of at most 65535 bytes, adler32.
inline void put_zlib_stored(std::vector<std::uint8_t>& out, std::span<const std::uint8_t> data) {
    out.push_back(0x78);
    out.push_back(0x01);
    std::span<const std::uint8_t> rest = data;
    do {
        const std::size_t n = std::min<std::size_t>(rest.size(), 65535);
        const bool final_block = n == rest.size();
        out.push_back(final_block ? 0x01 : 0x00);  // BFINAL, BTYPE = 00 (stored), then byte-aligned
        out.push_back(static_cast<std::uint8_t>(n & 0xff));  // LEN, little-endian
        out.push_back(static_cast<std::uint8_t>(n >> 8));
        out.push_back(static_cast<std::uint8_t>(~n & 0xff));  // NLEN = ~LEN
        out.push_back(static_cast<std::uint8_t>((~n >> 8) & 0xff));
        out.insert(out.end(), rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(n));
        rest = rest.subspan(n);
    } while (!rest.empty());
    put_be(out, adler32(data), 4);
}

[[noreturn]] inline void bad_hdr(const std::string& why) {
    throw std::invalid_argument("HdrHistogram V2 decoding: " + why);
}

// Reads a zlib stream made of stored blocks (what put_zlib_stored writes).
inline std::vector<std::uint8_t> inflate_stored(std::span<const std::uint8_t> in) {
    if (in.size() < 6) bad_hdr("zlib stream of " + std::to_string(in.size()) + " bytes is too short");
    if ((in[0] & 0x0f) != 8 || (in[0] >> 4) > 7 || ((in[0] << 8) | in[1]) % 31 != 0 || (in[1] & 0x20) != 0)
        bad_hdr("not a zlib stream (header bytes " + std::to_string(in[0]) + ", " + std::to_string(in[1]) + ")");
    std::vector<std::uint8_t> out;
    std::size_t at = 2;
    for (bool final_block = false; !final_block;) {
        if (at + 5 > in.size()) bad_hdr("truncated zlib stream");
        final_block = (in[at] & 1) != 0;
        const int type = (in[at] >> 1) & 3;
        if (type != 0)
            bad_hdr("the zlib stream uses deflate block type " + std::to_string(type) +
                    "; only stored blocks (as to_hdr_base64 writes) can be read without zlib");
        const auto len = static_cast<std::size_t>(detail::get_le16(in, at + 1));
        const auto nlen = static_cast<std::size_t>(detail::get_le16(in, at + 3));
        if ((len ^ 0xffff) != nlen) bad_hdr("corrupt stored block length");
        at += 5;
        if (at + len > in.size()) bad_hdr("truncated stored block");
        out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(at),
                   in.begin() + static_cast<std::ptrdiff_t>(at + len));
        at += len;
    }
    if (at + 4 != in.size()) bad_hdr("zlib stream does not end with its adler32 checksum");
    if (get_be(in, at, 4) != adler32(out)) bad_hdr("adler32 checksum mismatch");
    return out;
}

}  // namespace detail

/// The histogram in HdrHistogram's V2 binary encoding (see the format notes above). Its counts
/// are signed 64-bit: a bucket holding more than 2^63-1 (only reachable through merges or JSON,
/// never by recording) throws std::invalid_argument rather than being written wrong.
[[nodiscard]] inline std::vector<std::uint8_t> encode_hdr_v2(const latency_histogram& h,
                                                             hdr_encoding encoding = hdr_encoding::compressed) {
    using H = latency_histogram;
    // Like fillBufferFromCountsArray: counts up to the bucket of the max value (one entry when empty).
    const std::size_t limit = h.empty() ? 1 : H::index_of(h.max()) + 1;
    std::vector<std::uint8_t> payload;
    for (std::size_t i = 0; i < limit;) {
        const std::uint64_t c = h.count_at_index(i++);
        if (c != 0) {
            if (c > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                throw std::invalid_argument("HdrHistogram V2 encoding: bucket " + std::to_string(i - 1) + " holds " +
                                            std::to_string(c) + " counts, more than the format's 2^63-1");
            detail::put_zigzag(payload, static_cast<std::int64_t>(c));
            continue;
        }
        std::int64_t zeros = 1;
        while (i < limit && h.count_at_index(i) == 0) {
            ++zeros;
            ++i;
        }
        detail::put_zigzag(payload, zeros > 1 ? -zeros : 0);
    }
    std::vector<std::uint8_t> raw;
    raw.reserve(40 + payload.size());
    detail::put_be(raw, hdr_v2_encoding_cookie_base | 0x10, 4);
    detail::put_be(raw, payload.size(), 4);
    detail::put_be(raw, 0, 4);  // normalizing index offset
    detail::put_be(raw, H::significant_digits, 4);
    detail::put_be(raw, H::lowest_discernible_us, 8);
    detail::put_be(raw, H::highest_trackable_us, 8);
    detail::put_be(raw, std::bit_cast<std::uint64_t>(1.0), 8);  // integer-to-double conversion ratio
    raw.insert(raw.end(), payload.begin(), payload.end());
    if (encoding == hdr_encoding::uncompressed) return raw;

    std::vector<std::uint8_t> out;
    out.reserve(raw.size() + raw.size() / 65535 * 5 + 19);
    detail::put_be(out, hdr_v2_compressed_cookie_base | 0x10, 4);
    detail::put_be(out, 0, 4);  // zlib stream length, filled in below
    detail::put_zlib_stored(out, raw);
    const std::size_t zlib_len = out.size() - 8;
    for (std::size_t k = 0; k < 4; ++k) out[4 + k] = static_cast<std::uint8_t>(zlib_len >> (24 - 8 * k));
    return out;
}

/// Reads either V2 encoding (told apart by the cookie). Only this build's layout (1, 3600000000,
/// 3, offset 0, ratio 1.0) is accepted, and a compressed form only with stored deflate blocks.
/// HdrHistogram does not carry min, max, sum or saturation: they come back at bucket resolution
/// (lowest/highest equivalent value of the end buckets, sum of bucket midpoints). Counts past the
/// highest trackable value (HdrHistogram's last bucket reaches ~4295 s) are clamped as record()
/// clamps: into the top bucket, counted in saturated(), max() above an hour; so the total is exact
/// and survives encode_hdr_v2(). Throws std::invalid_argument saying what is wrong.
[[nodiscard]] inline latency_histogram decode_hdr_v2(std::span<const std::uint8_t> in) {
    using H = latency_histogram;
    if (in.size() < 8) detail::bad_hdr("input of " + std::to_string(in.size()) + " bytes is too short");
    const auto cookie = static_cast<std::uint32_t>(detail::get_be(in, 0, 4));
    std::vector<std::uint8_t> inflated;
    if ((cookie & ~0xf0u) == hdr_v2_compressed_cookie_base) {
        const auto len = static_cast<std::int32_t>(detail::get_be(in, 4, 4));
        if (len < 0 || static_cast<std::size_t>(len) != in.size() - 8)
            detail::bad_hdr("compressed length " + std::to_string(len) + " does not match the " +
                            std::to_string(in.size() - 8) + " bytes that follow");
        inflated = detail::inflate_stored(in.subspan(8));
        in = inflated;
        if (in.size() < 8 || (detail::get_be(in, 0, 4) & ~0xf0u) != hdr_v2_encoding_cookie_base)
            detail::bad_hdr("the compressed form does not hold a V2 encoding");
    } else if ((cookie & ~0xf0u) != hdr_v2_encoding_cookie_base) {
        char hex[11];
        std::snprintf(hex, sizeof hex, "0x%08x", cookie);
        detail::bad_hdr(std::string("cookie ") + hex +
                        " is not a V2 encoding (0x1c849303/0x1c849304 with any word-size nibble); V0/V1 are not read");
    }
    if (in.size() < 40) detail::bad_hdr("header of " + std::to_string(in.size()) + " bytes is shorter than 40");
    const auto payload_len = static_cast<std::int32_t>(detail::get_be(in, 4, 4));
    if (payload_len < 0 || static_cast<std::size_t>(payload_len) != in.size() - 40)
        detail::bad_hdr("payload length " + std::to_string(payload_len) + " does not match the " +
                        std::to_string(in.size() - 40) + " bytes that follow the header");
    const auto expect = [&](std::size_t at, int bytes, std::uint64_t want, const char* field) {
        const std::uint64_t got = detail::get_be(in, at, bytes);
        if (got != want)
            detail::bad_hdr(std::string(field) + " is " + std::to_string(got) + ", this build reads only " +
                            std::to_string(want));
    };
    expect(8, 4, 0, "normalizing index offset");
    expect(12, 4, H::significant_digits, "significant digits");
    expect(16, 8, H::lowest_discernible_us, "lowest discernible value");
    expect(24, 8, H::highest_trackable_us, "highest trackable value");
    expect(32, 8, std::bit_cast<std::uint64_t>(1.0), "integer-to-double conversion ratio (bits)");

    std::vector<std::uint64_t> counts(H::counts_len, 0);
    std::size_t index = 0, at = 40;
    std::uint64_t total = 0;
    while (at < in.size()) {
        std::uint64_t v = 0;
        int k = 0;
        for (;; ++k) {
            if (at >= in.size()) detail::bad_hdr("truncated LEB128 value at the end of the payload");
            const std::uint8_t b = in[at++];
            if (k == 8) {
                v |= std::uint64_t{b} << 56;
                break;
            }
            v |= std::uint64_t{b & 0x7fu} << (7 * k);
            if ((b & 0x80) == 0) break;
        }
        const auto value = static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
        if (value < 0) {
            const std::uint64_t zeros = static_cast<std::uint64_t>(-(value + 1)) + 1;
            if (zeros > H::counts_len - index) detail::bad_hdr("a run of zero counts goes past the last bucket");
            index += zeros;
            continue;
        }
        if (index >= H::counts_len) detail::bad_hdr("more counts than the layout's " + std::to_string(H::counts_len));
        const auto c = static_cast<std::uint64_t>(value);
        if (c > std::numeric_limits<std::uint64_t>::max() - total) detail::bad_hdr("total count overflows 64 bits");
        counts[index++] = c;
        total += c;
    }
    if (total == 0) return latency_histogram{};
    std::size_t lo = 0, hi = H::counts_len - 1;
    while (counts[lo] == 0) ++lo;
    while (counts[hi] == 0) --hi;
    std::uint64_t sum_ns = 0;
    for (std::size_t i = lo; i <= hi; ++i)
        sum_ns = detail::add_saturating(sum_ns, detail::mul_saturating(H::median_equivalent_us(i) * 1000, counts[i]));
    const std::uint64_t min_ns = H::lowest_equivalent_us(lo) * 1000;
    // HdrHistogram's counts array runs past the highest trackable value, to the end of its last
    // bucket: what lies there is folded into the top bucket and counted as saturated, exactly as
    // record() treats a value above an hour, so every count survives encode_hdr_v2.
    const std::size_t top = H::index_of_us(H::highest_trackable_us);
    std::uint64_t saturated = 0;
    for (std::size_t i = top + 1; i <= hi; ++i) {
        saturated += counts[i];  // cannot overflow: part of `total`
        counts[top] += counts[i];
        counts[i] = 0;
    }
    if (counts[top] > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        detail::bad_hdr("the counts above the highest trackable value bring the top bucket to " +
                        std::to_string(counts[top]) + ", more than the format's 2^63-1");
    const std::uint64_t max_us = H::highest_equivalent_us(hi);
    const std::uint64_t max_ns = (saturated > 0 ? max_us : std::min(max_us, H::highest_trackable_us)) * 1000;
    return detail::histogram_access::make(std::move(counts), total, saturated, sum_ns, min_ns, max_ns);
}

/// Base64 of encode_hdr_v2(): with the default (compressed) encoding, the text an HdrHistogram
/// log line carries, readable by HistogramLogReader, HdrHistogram_c's hdr_log_read and plotters.
[[nodiscard]] inline std::string to_hdr_base64(const latency_histogram& h,
                                               hdr_encoding encoding = hdr_encoding::compressed) {
    return detail::base64_encode(encode_hdr_v2(h, encoding));
}

/// Inverse of to_hdr_base64() for either encoding; see decode_hdr_v2() for what comes back.
[[nodiscard]] inline latency_histogram from_hdr_base64(std::string_view text) {
    std::string why;
    auto bytes = detail::base64_decode(text, &why);
    if (!bytes) detail::bad_hdr(why);
    return decode_hdr_v2(*bytes);
}

}  // namespace mcp_loadtest
