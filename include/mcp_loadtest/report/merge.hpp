// merge_reports(): several load reports of one workload (the shards of a sharded run, or runs on
// several machines) as one, exactly: counts summed, every histogram merged bucket for bucket,
// timelines and per-interval histograms aligned by wall clock, processes kept side by side.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/engine/evaluate_thresholds.hpp>
#include <mcp_loadtest/detail/engine/report_assembly.hpp>
#include <mcp_loadtest/histogram.hpp>
#include <mcp_loadtest/load_report.hpp>
#include <mcp_loadtest/thresholds.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace mcp_loadtest {

namespace detail {

/// A report's workload description without the part a shard adds ("this_shard"): the shards of
/// one run describe the same whole workload.
[[nodiscard]] MCP_LOADTEST_DECL json whole_workload(const load_report& r);

/// The length of a report's timeline buckets / intervals, in seconds (0: it has none to tell by).
[[nodiscard]] MCP_LOADTEST_DECL double interval_length_of(const load_report& r);

MCP_LOADTEST_DECL void check_mergeable(std::span<const load_report> reports);

MCP_LOADTEST_DECL void merge_failures(scenario_failures& into, const scenario_failures& from);

MCP_LOADTEST_DECL void add_samples(std::vector<std::string>& into, const std::vector<std::string>& from, std::size_t k);

/// The merged interval each of report k's intervals lands in: the one holding its midpoint on the
/// merged wall clock (a shard started between two merged interval boundaries shifts by < half one).
[[nodiscard]] MCP_LOADTEST_DECL std::size_t merged_bucket(double offset_s, double at_s, double length_s, double bucket_s);

MCP_LOADTEST_DECL void merge_timelines(load_report& out, std::span<const load_report> reports, const std::vector<double>& offsets,
                                       double bucket_s);

/// Bucket by bucket (memory: one dense histogram per tag, whatever the run's length).
MCP_LOADTEST_DECL void merge_intervals(load_report& out, std::span<const load_report> reports, const std::vector<double>& offsets,
                                       double bucket_s);

MCP_LOADTEST_DECL void merge_stages(load_report& out, const load_report& r);

MCP_LOADTEST_DECL void merge_generator(generator_report& into, const generator_report& from, std::size_t k);

MCP_LOADTEST_DECL void merge_authorization(std::optional<authorization_report>& into,
                                           const std::optional<authorization_report>& from);

MCP_LOADTEST_DECL void merge_cancellation(cancellation_counts& into, const cancellation_counts& from, std::size_t k);

}  // namespace detail

/// Merges reports of one workload against one server into one, exactly:
/// - counts (outcomes, iterations, dropped, violations, failures) are summed; every histogram
///   (overall, per tool, per method, per step, stages by name) is merged bucket for bucket, so its
///   percentiles are those of one histogram holding every report's calls; throughput is the calls
///   over the merged wall-clock span;
/// - timelines and per-interval histograms are aligned by wall clock (started_at_unix_ns): each
///   interval lands in the merged interval holding its midpoint; a report without a wall-clock
///   start is aligned at the earliest start, and merge_notes says so;
/// - processes are concatenated, each with its report's index in `source`; coverage is united;
/// - violations are the inputs' own, each prefixed "report[k] " (use the overload with thresholds
///   to judge the merged report instead); passed when every input passed.
/// Throws std::invalid_argument for no reports, reports of different workloads (name and
/// parameters, a shard's "this_shard" part aside) or of different servers (the same command line
/// or URL, or else the same non-empty serverInfo name and version: replicas at other addresses),
/// or of different timeline intervals.
[[nodiscard]] MCP_LOADTEST_DECL load_report merge_reports(std::span<const load_report> reports);

/// merge_reports(), then judged as run() judges a run: `objectives` evaluated on the merged report
/// (its merged percentiles, error rates, counts, every process), the breaking stage found again,
/// an aborted input failing the merge; passed when nothing was violated.
[[nodiscard]] MCP_LOADTEST_DECL load_report merge_reports(std::span<const load_report> reports, const thresholds& objectives);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/report/impl/merge.ipp>
#endif
