// A–F grades of a load report, one per dimension (latency, errors, resources), each with the
// inputs its rule read and one sentence saying what it means. The rules are in docs/reports.md
// ("Markdown reports and grades"), word for word as the comments below state them.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/load_report.hpp>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

namespace mcp_loadtest {

/// One dimension's grade. `letter` is 'A', 'B', 'C', 'D' or 'F', or '-' when the report holds
/// no evidence to grade (no call measured, no process sampled): never a silent A.
struct grade {
    std::string dimension;            ///< "latency", "errors" or "resources"
    char letter = '-';
    json inputs = json::object();     ///< what the rule read, e.g. {"p99_ms": 12.5, "tail_ratio": 3.1}
    std::string meaning;              ///< one sentence: what this grade means for the server's users

    [[nodiscard]] std::string letter_text() const { return std::string(1, letter); }
};

struct report_grades {
    grade latency;
    grade errors;
    grade resources;
};

MCP_LOADTEST_DECL void to_json(json& j, const grade& g);
MCP_LOADTEST_DECL void to_json(json& j, const report_grades& g);

namespace detail {

/// 'A' (best) .. 'F' (worst): the worse of two letters ('E' is never given).
[[nodiscard]] MCP_LOADTEST_DECL char worse_grade(char a, char b) noexcept;

[[nodiscard]] MCP_LOADTEST_DECL char grade_by_limits(double value, double a, double b, double c, double d) noexcept;

template <class Names>
[[nodiscard]] bool metric_is(std::string_view metric, const Names& names) {
    // "p99", "tool:echo:p99", "step:login:p99", "server[0]:rss_growth_mb": the last ':' part names it.
    const auto colon = metric.rfind(':');
    const std::string_view last = colon == std::string_view::npos ? metric : metric.substr(colon + 1);
    return std::find(names.begin(), names.end(), last) != names.end();
}

inline constexpr std::array<std::string_view, 6> latency_metrics = {"p50", "p90", "p95", "p99", "p999", "max"};
inline constexpr std::array<std::string_view, 4> resource_metrics = {"rss_growth_mb", "leak_slope_mb_per_s",
                                                                    "fd_growth", "thread_growth"};
inline constexpr std::array<std::string_view, 8> error_metrics = {"error_rate",          "hangs",
                                                                 "deadlocks",           "dropped",
                                                                 "protocol_violations", "schema_violations",
                                                                 "failed_checks",       "exceptions"};

template <class Names>
[[nodiscard]] std::size_t violations_of(const load_report& r, const Names& names) {
    return static_cast<std::size_t>(std::count_if(r.violations.begin(), r.violations.end(),
                                                  [&](const threshold_violation& v) { return metric_is(v.metric, names); }));
}

}  // namespace detail

/// Latency. Rule: "No measured call: '-'. A missed latency threshold (p50 … max, overall, per tool
/// or per step): F. Otherwise the worse of two letters: the p99 (A ≤ 100 ms, B ≤ 250 ms,
/// C ≤ 1 s, D ≤ 5 s, else F) and, when the p99 is at least 10 ms, the tail ratio p99/p50
/// (A ≤ 3, B ≤ 5, C ≤ 10, D ≤ 50, else F); below 10 ms the ratio is scheduling noise and not graded."
[[nodiscard]] MCP_LOADTEST_DECL grade grade_latency(const load_report& r);

/// Errors. Rule: "No call and no failure recorded: '-'. F: the run aborted, any crash or deadlock,
/// an error rate above 5 %, or a missed error objective. D: any hang, any protocol violation, or an error rate
/// above 1 %. C: an error rate above 0.1 %, any schema violation, failed check, exception in a
/// scenario, or dropped arrival. B: any other error or late reply. A: none of these."
/// (Error objectives: error_rate, overall or per tool or step, and the counts hangs, deadlocks,
/// dropped, protocol_violations, schema_violations, failed_checks, exceptions, outcomes.*.)
[[nodiscard]] MCP_LOADTEST_DECL grade grade_errors(const load_report& r);

/// Resources. Rule: "No leak analysis (no process sampled): '-'. F: any leak verdict `leak` or a
/// missed resource objective (rss_growth_mb, leak_slope_mb_per_s, fd_growth, thread_growth).
/// Otherwise by the largest predicted growth as a share of the growth allowed, over every series
/// judged (verdict no_leak) of every process: A ≤ 25 %, B ≤ 50 %, C ≤ 100 %, D above 100 %.
/// A series too short or too noisy to judge (insufficient_data, indeterminate) is not graded
/// and the meaning says so; when no series was judged: '-', not judged."
[[nodiscard]] MCP_LOADTEST_DECL grade grade_resources(const load_report& r);

[[nodiscard]] MCP_LOADTEST_DECL report_grades grade_report(const load_report& r);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/report/impl/grade.ipp>
#endif
