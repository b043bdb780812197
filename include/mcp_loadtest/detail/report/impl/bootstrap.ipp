// Definitions of detail/report/bootstrap.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/report/bootstrap.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL double normal_quantile(double p) {
    static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                   1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                   6.680131188771972e+01, -1.328068155288572e+01};
    static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                   -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                   3.754408661907416e+00};
    p = std::clamp(p, 1e-300, 1 - 1e-16);
    constexpr double low = 0.02425;
    if (p < low) {
        const double q = std::sqrt(-2 * std::log(p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    if (p > 1 - low) return -normal_quantile(1 - p);
    const double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

MCP_LOADTEST_DECL double sorted_quantile(std::span<const double> sorted, double q) {
    if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
    const double h = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const auto hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

MCP_LOADTEST_DECL std::pair<double, double> wilson_interval(std::uint64_t x, std::uint64_t n, double z) {
    if (n == 0) return {0, 1};
    const double nn = static_cast<double>(n), p = static_cast<double>(x) / nn, z2 = z * z;
    const double centre = (p + z2 / (2 * nn)) / (1 + z2 / nn);
    const double half = z / (1 + z2 / nn) * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
    return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

MCP_LOADTEST_DECL std::pair<double, double> proportion_difference_interval(std::uint64_t x1, std::uint64_t n1,
                                                                           std::uint64_t x2, std::uint64_t n2,
                                                                           double z) {
    const double p1 = static_cast<double>(x1) / static_cast<double>(n1);
    const double p2 = static_cast<double>(x2) / static_cast<double>(n2);
    const auto [l1, u1] = wilson_interval(x1, n1, z);
    const auto [l2, u2] = wilson_interval(x2, n2, z);
    const double d = p2 - p1;
    return {d - std::sqrt((p2 - l2) * (p2 - l2) + (u1 - p1) * (u1 - p1)),
            d + std::sqrt((u2 - p2) * (u2 - p2) + (p1 - l1) * (p1 - l1))};
}

MCP_LOADTEST_DECL std::uint64_t stable_hash(std::string_view s, std::uint64_t seed) noexcept {
    std::uint64_t h = 1469598103934665603ull ^ seed;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

MCP_LOADTEST_DECL void moving_block_resample(std::size_t n, std::size_t block, std::mt19937_64& rng,
                                             std::vector<std::size_t>& out) {
    out.clear();
    if (n == 0) return;
    block = std::clamp<std::size_t>(block, 1, n);
    const std::uint64_t starts = n - block + 1;
    while (out.size() < n) {
        const auto start = static_cast<std::size_t>(rng() % starts);  // modulo bias < 2^-50: irrelevant
        for (std::size_t i = 0; i < block && out.size() < n; ++i) out.push_back(start + i);
    }
}

MCP_LOADTEST_DECL std::size_t auto_block_length(std::size_t n) {
    return std::max<std::size_t>(1, static_cast<std::size_t>(std::lround(std::cbrt(static_cast<double>(n)))));
}


MCP_LOADTEST_DECL sparse_interval sparse_interval::of(const latency_histogram& h, double length_s) {
    sparse_interval s;
    s.length_s = length_s;
    s.count = h.count();
    if (s.count == 0) return s;
    s.min_ns = static_cast<std::uint64_t>(h.min().count());
    s.max_ns = static_cast<std::uint64_t>(h.max().count());
    h.for_each_bucket([&](std::size_t i, std::uint64_t c) { s.buckets.emplace_back(static_cast<std::uint32_t>(i), c); });
    return s;
}

MCP_LOADTEST_DECL interval_pool::interval_pool(std::span<const sparse_interval> intervals) : intervals_(intervals) {
    std::uint32_t lo = std::numeric_limits<std::uint32_t>::max(), hi = 0;
    for (const auto& s : intervals_)
        for (const auto& [i, c] : s.buckets) lo = std::min(lo, i), hi = std::max(hi, i);
    if (lo > hi) lo = hi = 0;
    lo_ = lo;
    counts_.assign(static_cast<std::size_t>(hi - lo) + 1, 0);
}

MCP_LOADTEST_DECL double interval_pool::rate(std::span<const std::size_t> chosen) const {
    double calls = 0, seconds = 0;
    for (auto k : chosen) calls += static_cast<double>(intervals_[k].count), seconds += intervals_[k].length_s;
    return seconds > 0 ? calls / seconds : 0;
}

MCP_LOADTEST_DECL std::uint64_t interval_pool::rank_at(double p, std::uint64_t count) noexcept {
    if (!(p > 0.0)) return 1;
    const double exact = std::min(p, 100.0) / 100.0 * static_cast<double>(count);
    const double nearest = std::round(exact);
    const double whole = std::abs(exact - nearest) <= 1e-12 * std::max(1.0, exact) ? nearest : std::floor(exact);
    return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(whole) + 1, 1, count);
}

}  // namespace mcp_loadtest::detail
