// Definitions of histogram/latency_histogram.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/histogram/latency_histogram.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <utility>
#include <vector>

namespace mcp_loadtest {

MCP_LOADTEST_DECL void latency_histogram::record(std::chrono::nanoseconds d) noexcept {
    // The first record allocates, out of line: the path of every other one calls nothing, so it
    // saves and restores no registers (it runs a few times per call of a load test).
    if (counts_.empty()) [[unlikely]]
        return record_first(d);
    const std::uint64_t ns = d.count() > 0 ? static_cast<std::uint64_t>(d.count()) : 0;
    std::uint64_t us = ns / 1000;
    if (us > highest_trackable_us) [[unlikely]] {
        us = highest_trackable_us;
        ++saturated_;
    }
    ++counts_[index_of_us(us)];
    ++count_;
    sum_ns_ = detail::add_saturating(sum_ns_, ns);
    min_ns_ = std::min(min_ns_, ns);
    max_ns_ = std::max(max_ns_, ns);
}

MCP_LOADTEST_DECL void latency_histogram::record_n(std::chrono::nanoseconds d, std::uint64_t n) noexcept {
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

MCP_LOADTEST_DECL void latency_histogram::merge(const latency_histogram& other) noexcept {
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

MCP_LOADTEST_DECL void latency_histogram::reset() noexcept {
    std::fill(counts_.begin(), counts_.end(), std::uint64_t{0});
    count_ = 0;
    saturated_ = 0;
    sum_ns_ = 0;
    min_ns_ = no_min;
    max_ns_ = 0;
}

MCP_LOADTEST_DECL std::chrono::nanoseconds latency_histogram::mean() const noexcept {
    if (count_ == 0) return std::chrono::nanoseconds{0};
    std::uint64_t q = sum_ns_ / count_;
    const std::uint64_t r = sum_ns_ % count_;
    if (r >= count_ - r) ++q;
    return to_ns(q);
}

MCP_LOADTEST_DECL std::chrono::nanoseconds latency_histogram::stddev() const noexcept {
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

MCP_LOADTEST_DECL std::chrono::nanoseconds latency_histogram::percentile(double p) const noexcept {
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

MCP_LOADTEST_DECL latency_summary latency_histogram::summary() const noexcept {
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

MCP_LOADTEST_DECL std::chrono::nanoseconds latency_histogram::to_ns(std::uint64_t ns) noexcept {
    constexpr auto most = static_cast<std::uint64_t>(std::numeric_limits<std::chrono::nanoseconds::rep>::max());
    return std::chrono::nanoseconds{static_cast<std::chrono::nanoseconds::rep>(std::min(ns, most))};
}

MCP_LOADTEST_DECL std::uint64_t latency_histogram::rank_at(double p) const noexcept {
    if (!(p > 0.0)) return 1;
    const double exact = std::min(p, 100.0) / 100.0 * static_cast<double>(count_);
    const double nearest = std::round(exact);
    const double whole = std::abs(exact - nearest) <= 1e-12 * std::max(1.0, exact) ? nearest : std::floor(exact);
    return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(whole) + 1, 1, count_);
}

MCP_LOADTEST_DECL std::chrono::nanoseconds latency_histogram::value_at_index(std::size_t index) const noexcept {
    if (index == max_index()) return to_ns(max_ns_);
    return to_ns(std::clamp(highest_equivalent_us(index) * 1000, min_ns_, max_ns_));
}

namespace detail {

MCP_LOADTEST_DECL latency_histogram histogram_access::make(std::vector<std::uint64_t> counts, std::uint64_t count, std::uint64_t saturated,
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

}  // namespace detail
}  // namespace mcp_loadtest
