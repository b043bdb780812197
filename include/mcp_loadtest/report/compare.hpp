// compare(baseline, current, rules): did the current run get worse than the baseline, metric by
// metric, with a confidence interval for each change and a verdict that says "inconclusive"
// rather than guess (docs/reports.md#comparing-reports).
//
// Latency percentiles and throughput: a seeded moving-block bootstrap over the per-interval
// histograms (load_report::intervals) and the timeline's per-interval counts; each resample
// pools the chosen intervals' histograms exactly and reads the percentile. Error rates: the
// calls and errors as counts (Newcombe's score interval for the difference of two proportions).
// Leak slopes: the two least-squares slopes and their standard errors. A metric has regressed
// only when the change is both significant (its interval excludes 0 on the bad side) and at
// least the minimum effect (relative, with an absolute floor).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/report/bootstrap.hpp>
#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/load_report.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

enum class change_verdict { regressed, improved, unchanged, inconclusive };

[[nodiscard]] constexpr std::string_view to_string(change_verdict v) noexcept {
    switch (v) {
        case change_verdict::regressed: return "regressed";
        case change_verdict::improved: return "improved";
        case change_verdict::unchanged: return "unchanged";
        case change_verdict::inconclusive: return "inconclusive";
    }
    return "inconclusive";
}

/// How compare() decides. The defaults suit a noisy shared CI machine (docs/reports.md).
struct comparison_rules {
    /// A change smaller than this (relative: 0.20 = 20 %) is no regression, however significant.
    /// 20 %: on a shared 2-core machine a burst of parallel compiles moved an unchanged server's
    /// p50 by +15 % for 15 s (docs/reports.md has the measurements); lower it on a quiet runner.
    double min_effect = 0.20;
    /// Latency changes smaller than this are no regression either (scheduler noise on a shared
    /// machine is of this order; 10 % of a 300 us p50 is not a finding).
    std::chrono::nanoseconds min_latency_change = std::chrono::microseconds(500);
    /// Error rates: a change smaller than this many points (0.005 = 0.5 percentage points), or
    /// than min_effect of the baseline's rate, is no regression.
    double min_error_rate_change = 0.005;
    /// Two-sided confidence of every interval.
    double confidence = 0.95;
    /// Bootstrap resamples (each 2.5 % tail of the 95 % interval rests on 25 of them), and the
    /// block length (0: round(n^(1/3)) intervals).
    std::size_t resamples = 1000;
    std::size_t block_length = 0;
    /// Fewer intervals than this in either report: latency and throughput are inconclusive.
    std::size_t min_intervals = 10;
    /// A percentile p is judged only when each report has at least this many calls beyond it
    /// ((1 - p) × calls): p99 needs 2000 calls, p99.9 20 000. The bootstrap of a quantile
    /// with a handful of calls in its tail is too narrow (it can never exceed the run's maximum)
    /// and gave 8 % false alarms on p99.9 of 1000 calls in our simulations.
    std::size_t min_tail_calls = 20;
    std::uint64_t seed = 20260728;
    bool per_tool = true;
    bool per_step = true;
    bool leaks = true;
    /// A workload that differs (type, users, rate, sessions, ...; duration aside) makes every
    /// verdict inconclusive: the runs are different experiments. Set to compare them anyway.
    bool allow_workload_mismatch = false;
};

/// One metric of one slice (overall, a tool, a step, a server process).
struct metric_comparison {
    std::string scope;   ///< "overall", "tool slow", "step checkout", "server[0]"
    std::string metric;  ///< p50, p95, p99, p99.9, throughput, error_rate, leak rss_mb|open_fds|threads
    std::string unit;    ///< ms, calls/s, %, or the leak's unit per second
    bool higher_is_better = false;
    double baseline = 0;
    double current = 0;
    /// Relative metrics (latency, throughput, leak slopes when both are leaks): current/baseline - 1.
    /// Absolute metrics (error rate: fraction points; leak slopes otherwise: unit/s): current - baseline.
    double change = 0;
    bool change_is_absolute = false;
    double ci_low = 0, ci_high = 0;  ///< interval of `change` at rules.confidence; NaN: none
    double effect_floor = 0;         ///< the minimum effect applied, in the units of `change`
    change_verdict verdict = change_verdict::inconclusive;
    std::string sentence;            ///< what changed, how sure, and why this verdict

    [[nodiscard]] std::string name() const { return scope + " " + metric; }
};

struct comparison {
    std::string baseline_run_id;
    std::string current_run_id;
    comparison_rules rules;
    std::vector<metric_comparison> metrics;
    /// What differs between the two runs besides the code under test (workload, server,
    /// machine, compiler, library version), one sentence each.
    std::vector<std::string> mismatches;
    /// What to do about a regression (baseline checks add the command that refreshes it).
    std::string advice;

    [[nodiscard]] MCP_LOADTEST_DECL bool passed() const noexcept;
    [[nodiscard]] MCP_LOADTEST_DECL std::vector<const metric_comparison*> with(change_verdict v) const;
    [[nodiscard]] MCP_LOADTEST_DECL const metric_comparison* find(std::string_view scope, std::string_view metric) const noexcept;
    /// What regressed, by how much, with what confidence, and what to do; or that nothing did.
    [[nodiscard]] MCP_LOADTEST_DECL std::string verdict_sentence() const;
};

namespace detail {

MCP_LOADTEST_DECL std::string fixed(double v, int digits);
MCP_LOADTEST_DECL std::string signed_pct(double v);
/// A value in its unit, for sentences.
MCP_LOADTEST_DECL std::string with_unit(double v, const std::string& unit);
MCP_LOADTEST_DECL std::string describe_change(const metric_comparison& m);

/// The decision rule, for a change (relative or absolute) whose bad direction is `bad_sign`
/// (+1: higher is worse) and whose minimum effect is `floor` (> 0): regressed when the interval
/// excludes 0 on the bad side AND the change is at least the floor; improved, the mirror image;
/// unchanged when the whole interval lies within ±floor; otherwise inconclusive.
MCP_LOADTEST_DECL change_verdict decide(double change, double lo, double hi, double floor, int bad_sign);

MCP_LOADTEST_DECL std::string verdict_reason(const metric_comparison& m, double confidence);

MCP_LOADTEST_DECL void finish_sentence(metric_comparison& m, double confidence);

MCP_LOADTEST_DECL metric_comparison inconclusive_metric(std::string scope, std::string metric, std::string unit, bool higher_better,
                                                        double b, double c, std::string why);

MCP_LOADTEST_DECL std::vector<sparse_interval> intervals_of(const load_report& r, std::string_view tag);

/// The timeline's whole buckets as sparse intervals holding only a count (for throughput).
MCP_LOADTEST_DECL std::vector<sparse_interval> timeline_buckets(const load_report& r);

MCP_LOADTEST_DECL std::string too_few_intervals(std::size_t nb, std::size_t nc, std::size_t needed);

/// Latency percentiles (and the slice's throughput, from interval counts) of one tag.
MCP_LOADTEST_DECL void compare_latency(const load_report& b, const load_report& c, const std::string& scope, std::string_view tag,
                                       const call_stats* b_stats, const call_stats* c_stats, bool with_throughput,
                                       const comparison_rules& rules, std::vector<metric_comparison>& out);

/// The whole run's throughput from the timeline's completed-per-interval counts.
MCP_LOADTEST_DECL metric_comparison compare_throughput(const load_report& b, const load_report& c, const comparison_rules& rules);

/// Error rates as counts: Newcombe's interval for the difference of the two proportions.
MCP_LOADTEST_DECL metric_comparison compare_error_rate(const std::string& scope, const outcome_counts& b, const outcome_counts& c,
                                                       const comparison_rules& rules);

/// The slope's standard error from its fit: |slope| * sqrt((1 - R²) / (R² (n - 2))).
MCP_LOADTEST_DECL double slope_standard_error(const trend_fit& f);

/// Leak slopes of one server process: regressed when the current run leaks (its growth over the
/// run exceeds leak_options' allowance) where the baseline did not and the slope rose
/// significantly, or when both leak and the current slope is significantly and min_effect steeper.
MCP_LOADTEST_DECL metric_comparison compare_leak(const std::string& scope, const leak_analysis& b, const leak_analysis& c,
                                                 const comparison_rules& rules);

MCP_LOADTEST_DECL json workload_identity(const load_report& r);

}  // namespace detail

/// Compares `current` with `baseline`, metric by metric (see the header comment and
/// docs/reports.md#comparing-reports for the rule). Deterministic for given reports and rules.
[[nodiscard]] MCP_LOADTEST_DECL comparison compare(const load_report& baseline, const load_report& current,
                                                   const comparison_rules& rules = {});


// ---- JSON -------------------------------------------------------------------------

MCP_LOADTEST_DECL void to_json(json& j, const comparison_rules& r);
MCP_LOADTEST_DECL void from_json(const json& j, comparison_rules& r);

namespace detail {
MCP_LOADTEST_DECL json finite_or_null(double v);
MCP_LOADTEST_DECL double number_or_nan(const json& j, const char* key);
}  // namespace detail

MCP_LOADTEST_DECL void to_json(json& j, const metric_comparison& m);
MCP_LOADTEST_DECL void from_json(const json& j, metric_comparison& m);
MCP_LOADTEST_DECL void to_json(json& j, const comparison& c);
MCP_LOADTEST_DECL void from_json(const json& j, comparison& c);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/report/impl/compare.ipp>
#endif
