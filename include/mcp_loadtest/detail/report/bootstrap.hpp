// Mechanics of compare() (report/compare.hpp): a seeded moving-block bootstrap over per-interval
// histograms and counts, exact pooling of resampled histograms, and the score interval for a
// difference of two proportions. No report types here: only numbers and histograms.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/histogram.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest::detail {

/// The quantile function of the standard normal (Acklam's rational approximation, relative error
/// below 1.2e-9): z such that P(Z < z) = p.
[[nodiscard]] MCP_LOADTEST_DECL double normal_quantile(double p);

/// Linear-interpolation quantile (type 7) of sorted values, q in [0, 1].
[[nodiscard]] MCP_LOADTEST_DECL double sorted_quantile(std::span<const double> sorted, double q);

/// Wilson score interval of x successes in n trials.
[[nodiscard]] MCP_LOADTEST_DECL std::pair<double, double> wilson_interval(std::uint64_t x, std::uint64_t n, double z);

/// Newcombe's hybrid score interval (his method 10) for p2 - p1: sound with zero counts, where
/// the Wald interval collapses to a point.
[[nodiscard]] MCP_LOADTEST_DECL std::pair<double, double> proportion_difference_interval(std::uint64_t x1, std::uint64_t n1,
                                                                                         std::uint64_t x2, std::uint64_t n2,
                                                                                         double z);

/// A stable 64-bit hash (FNV-1a) so each metric's bootstrap stream depends on its name and the
/// seed only, not on the order metrics are compared in.
[[nodiscard]] MCP_LOADTEST_DECL std::uint64_t stable_hash(std::string_view s, std::uint64_t seed) noexcept;

/// Indices 0..n-1 resampled by moving blocks: ceil(n / L) blocks of L consecutive intervals, each
/// starting anywhere in [0, n - L], concatenated and cut to n. Consecutive intervals of a run are
/// correlated (a GC pause, a noisy neighbour spans several); blocks keep that correlation, so the
/// interval is not too narrow the way an i.i.d. bootstrap over intervals would be.
MCP_LOADTEST_DECL void moving_block_resample(std::size_t n, std::size_t block, std::mt19937_64& rng,
                                             std::vector<std::size_t>& out);

/// The automatic block length: round(n^(1/3)), at least 1 (the usual rate for the moving-block
/// bootstrap of a distribution's functional; 3 for 20 intervals, 7 for 300).
[[nodiscard]] MCP_LOADTEST_DECL std::size_t auto_block_length(std::size_t n);

/// One interval's histogram kept sparse (a soak has hundreds of intervals; a dense
/// latency_histogram is 184 KiB each): its non-empty buckets and its exact min and max.
struct sparse_interval {
    std::vector<std::pair<std::uint32_t, std::uint64_t>> buckets;
    std::uint64_t count = 0;
    std::uint64_t min_ns = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t max_ns = 0;
    double length_s = 0;

    [[nodiscard]] MCP_LOADTEST_DECL static sparse_interval of(const latency_histogram& h, double length_s);
};

/// Pools chosen intervals exactly (bucket by bucket, exact min and max) and reads percentiles the
/// way latency_histogram::percentile() does, so pooling every interval once gives the report's
/// own figures. Dense over the buckets the intervals use, reused across resamples.
class interval_pool {
public:
    MCP_LOADTEST_DECL explicit interval_pool(std::span<const sparse_interval> intervals);

    /// Percentiles (ns) of the pooled intervals `chosen` (repeats allowed), one per entry of `ps`;
    /// all zero when they hold no call.
    template <std::size_t K>
    [[nodiscard]] std::array<double, K> percentiles(std::span<const std::size_t> chosen, const std::array<double, K>& ps) {
        std::fill(counts_.begin(), counts_.end(), 0);
        std::uint64_t total = 0, min_ns = std::numeric_limits<std::uint64_t>::max(), max_ns = 0;
        for (auto k : chosen) {
            const auto& s = intervals_[k];
            if (s.count == 0) continue;
            for (const auto& [i, c] : s.buckets) counts_[i - lo_] += c;
            total += s.count;
            min_ns = std::min(min_ns, s.min_ns);
            max_ns = std::max(max_ns, s.max_ns);
        }
        std::array<double, K> out{};
        if (total == 0) return out;
        using H = latency_histogram;
        const auto max_index = H::index_of_us(std::min(max_ns / 1000, H::highest_trackable_us));
        std::size_t next = 0;
        std::uint64_t seen = 0;
        for (std::size_t j = 0; j < counts_.size() && next < K; ++j) {
            seen += counts_[j];
            const std::size_t index = j + lo_;
            while (next < K && seen >= rank_at(ps[next], total)) {
                const std::uint64_t v = index >= max_index ? max_ns
                                                           : std::clamp(H::highest_equivalent_us(index) * 1000, min_ns, max_ns);
                out[next++] = static_cast<double>(v);
            }
        }
        for (; next < K; ++next) out[next] = static_cast<double>(max_ns);
        return out;
    }

    /// Calls per second of the chosen intervals: their calls over their summed length.
    [[nodiscard]] MCP_LOADTEST_DECL double rate(std::span<const std::size_t> chosen) const;

    // latency_histogram's rank: floor(p% * count) + 1, a near-whole product read as whole.
    [[nodiscard]] MCP_LOADTEST_DECL static std::uint64_t rank_at(double p, std::uint64_t count) noexcept;

private:
    std::span<const sparse_interval> intervals_;
    std::uint32_t lo_ = 0;
    std::vector<std::uint64_t> counts_;
};

/// What the bootstrap of one relative change found.
struct bootstrap_change {
    double change = 0;      ///< current / baseline - 1 on all the data
    double ci_low = 0;      ///< quantiles of the resampled changes
    double ci_high = 0;
    std::size_t valid = 0;  ///< resamples with a non-zero baseline statistic
};

/// The percentile bootstrap of current/baseline - 1 for K statistics at once. `stat_b(indices)`
/// and `stat_c(indices)` compute the K statistics of a resample of each report's nb / nc
/// intervals; both are resampled independently (the two runs are independent experiments).
template <std::size_t K, class StatB, class StatC>
[[nodiscard]] std::array<bootstrap_change, K> bootstrap_relative_change(std::size_t nb, std::size_t nc, StatB&& stat_b,
                                                                        StatC&& stat_c, std::size_t resamples,
                                                                        std::size_t block, double confidence,
                                                                        std::uint64_t seed) {
    std::vector<std::size_t> all_b(nb), all_c(nc);
    for (std::size_t i = 0; i < nb; ++i) all_b[i] = i;
    for (std::size_t i = 0; i < nc; ++i) all_c[i] = i;
    const std::array<double, K> point_b = stat_b(std::span<const std::size_t>(all_b));
    const std::array<double, K> point_c = stat_c(std::span<const std::size_t>(all_c));
    std::array<std::vector<double>, K> changes;
    for (auto& c : changes) c.reserve(resamples);
    std::mt19937_64 rng(seed);
    const std::size_t block_b = block ? block : auto_block_length(nb);
    const std::size_t block_c = block ? block : auto_block_length(nc);
    std::vector<std::size_t> ib, ic;
    for (std::size_t r = 0; r < resamples; ++r) {
        moving_block_resample(nb, block_b, rng, ib);
        moving_block_resample(nc, block_c, rng, ic);
        const auto vb = stat_b(std::span<const std::size_t>(ib));
        const auto vc = stat_c(std::span<const std::size_t>(ic));
        for (std::size_t k = 0; k < K; ++k)
            if (vb[k] > 0) changes[k].push_back(vc[k] / vb[k] - 1);
    }
    std::array<bootstrap_change, K> out{};
    const double tail = (1 - confidence) / 2;
    for (std::size_t k = 0; k < K; ++k) {
        out[k].change = point_b[k] > 0 ? point_c[k] / point_b[k] - 1 : std::numeric_limits<double>::quiet_NaN();
        std::sort(changes[k].begin(), changes[k].end());
        out[k].valid = changes[k].size();
        out[k].ci_low = sorted_quantile(changes[k], tail);
        out[k].ci_high = sorted_quantile(changes[k], 1 - tail);
    }
    return out;
}

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/report/impl/bootstrap.ipp>
#endif
