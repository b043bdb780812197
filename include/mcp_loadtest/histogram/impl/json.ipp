// Definitions of histogram/json.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/histogram/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {
namespace detail {

MCP_LOADTEST_DECL void bad_histogram_field(std::string_view what, std::string_view field, std::string_view expected,
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

MCP_LOADTEST_DECL const json& histogram_field(const json& j, std::string_view what, const char* field, std::string_view expected) {
    const auto it = j.find(field);
    if (it == j.end()) bad_histogram_field(what, field, expected, nullptr);
    return *it;
}

MCP_LOADTEST_DECL std::uint64_t histogram_uint(const json& j, std::string_view what, const char* field,
                                               std::string_view expected) {
    const json& v = histogram_field(j, what, field, expected);
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
    bad_histogram_field(what, field, expected, &v);
}

}  // namespace detail

MCP_LOADTEST_DECL void to_json(json& j, const latency_histogram& h) {
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

MCP_LOADTEST_DECL void from_json(const json& j, latency_histogram& out) {
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

MCP_LOADTEST_DECL void to_json(json& j, const latency_summary& s) {
    using detail::ms;
    j = json{{"count", s.count},      {"min_ms", ms(s.min)}, {"max_ms", ms(s.max)}, {"mean_ms", ms(s.mean)},
             {"stddev_ms", ms(s.stddev)}, {"p50_ms", ms(s.p50)}, {"p90_ms", ms(s.p90)}, {"p95_ms", ms(s.p95)},
             {"p99_ms", ms(s.p99)},   {"p999_ms", ms(s.p999)}};
}

MCP_LOADTEST_DECL void from_json(const json& j, latency_summary& s) {
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

}  // namespace mcp_loadtest
