// Leak detection on a server's samples (docs/load-testing.md#process-sampling-and-leak-detection): discard the
// warm-up, fit a straight line to each resource over time, and call it a leak
// when the line predicts more growth over the run than allowed and fits well.
//
//     auto findings = mlt::analyse_leaks(sampler.samples_of(session.pid()), {.warmup = 5s});
//     for (const auto& f : findings) CHECK_MESSAGE(f.verdict != mlt::leak_verdict::leak, f.explanation);
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/process_sampling.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest {

/// A least-squares line y = slope_per_s * t + intercept.
struct trend_fit {
    double slope_per_s = 0;
    double intercept = 0;
    double r2 = 0;  ///< 1 - SSres/SStot; 1 for a perfectly flat series
    std::size_t points = 0;
};

/// Fits (t in seconds, y) by least squares. A flat series (every y equal)
/// fits exactly: slope 0, R² 1. Fewer than two distinct t give slope 0.
[[nodiscard]] MCP_LOADTEST_DECL trend_fit fit_linear(const std::vector<std::pair<double, double>>& points);

enum class leak_verdict { no_leak, leak, indeterminate, insufficient_data };

[[nodiscard]] MCP_LOADTEST_DECL std::string_view to_string(leak_verdict v) noexcept;

[[nodiscard]] MCP_LOADTEST_DECL std::optional<leak_verdict> leak_verdict_from_string(std::string_view s) noexcept;

/// The verdict on one resource of one process.
struct leak_analysis {
    std::string resource;  ///< "rss_mb", "open_fds" or "threads"
    leak_verdict verdict = leak_verdict::insufficient_data;
    trend_fit fit;
    double predicted_growth = 0;  ///< slope × analysed duration, in the resource's unit
    double threshold = 0;         ///< growth allowed over the run
    std::chrono::nanoseconds warmup_discarded{0};
    std::string explanation;      ///< what was found and what to do about it
};

struct leak_options {
    /// Samples within this long of the process's first sample are discarded
    /// (JIT, lazy imports, caches filling). For a sampler started together with
    /// the server this is the offset `at`; a server added later gets its own.
    std::chrono::milliseconds warmup{30000};
    double rss_growth_mb = 50;  ///< growth allowed over the analysed run
    double fd_growth = 20;
    double thread_growth = 10;
    double min_r2 = 0.5;        ///< a fit worse than this cannot show a leak: indeterminate
    std::size_t min_points = 5; ///< fewer samples after the warm-up: insufficient_data
};

namespace detail {

struct leak_resource {
    const char* name;    // the analysis' resource id
    const char* noun;    // how the explanation names it
    const char* unit;    // appended to amounts and rates
    const char* level;   // appended to a level ("flat at 5")
    const char* advice;  // what to look at when it leaks
};

MCP_LOADTEST_DECL leak_analysis analyse_resource(const std::vector<process_sample>& kept, std::chrono::nanoseconds discarded,
                                                 const leak_resource& res, double (*value)(const process_sample&),
                                                 double threshold, const leak_options& opt);

}  // namespace detail

/// Analyses RSS, open descriptors and threads of one process (pass
/// `sampler.samples_of(pid)`, in time order), in that order. As docs/load-testing.md#process-sampling-and-leak-detection describes:
/// samples in the warm-up are discarded; a line is fitted to the rest;
/// growth = slope × analysed duration. Growth above the threshold is a leak
/// when R² ≥ min_r2, else indeterminate; otherwise no leak. A series that
/// only grew during the warm-up, or is flat, is no leak.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<leak_analysis> analyse_leaks(const std::vector<process_sample>& samples,
                                                                         const leak_options& options);

/// True if any analysis found a leak.
[[nodiscard]] MCP_LOADTEST_DECL bool has_leak(const std::vector<leak_analysis>& analyses) noexcept;

/// A descendant of a sampled server (a worker, the real server behind an
/// `npx` / `uv run` wrapper): its figures and leak verdicts.
struct descendant_process_report {
    pid_t pid = 0;
    pid_t parent = 0;     ///< when last sampled
    std::string command;  ///< its whole command line, arguments quoted like a shell (at most 16 KiB, detail::max_command_chars), when first found
    process_stats stats;
    std::vector<leak_analysis> leaks;
    std::vector<process_sample> samples;

    /// "pid 123 (`python3 worker.py`, child of pid 100)", for messages.
    [[nodiscard]] MCP_LOADTEST_DECL std::string describe() const;
};

/// Analyses every descendant the sampler found below `root`, as
/// analyse_leaks() does the root, each with its own warm-up from its own
/// first sample.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<descendant_process_report> analyse_descendants(const process_sampler& sampler,
                                                                                           pid_t root,
                                                                                           const leak_options& options);

/// The leaks found in descendants, each explanation prefixed with which
/// process leaked: "descendant pid 123 (`...`, child of pid 100): RSS grew ...".
[[nodiscard]] MCP_LOADTEST_DECL std::vector<leak_analysis> descendant_leaks(const std::vector<descendant_process_report>& ds);

// ---- JSON (durations as integer nanoseconds, the verdict as its name) ---------

MCP_LOADTEST_DECL void to_json(json& j, const trend_fit& f);
MCP_LOADTEST_DECL void from_json(const json& j, trend_fit& f);

MCP_LOADTEST_DECL void to_json(json& j, const leak_verdict& v);
MCP_LOADTEST_DECL void from_json(const json& j, leak_verdict& v);

MCP_LOADTEST_DECL void to_json(json& j, const leak_analysis& a);
MCP_LOADTEST_DECL void from_json(const json& j, leak_analysis& a);

MCP_LOADTEST_DECL void to_json(json& j, const descendant_process_report& d);
MCP_LOADTEST_DECL void from_json(const json& j, descendant_process_report& d);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/leak_detection.ipp>
#endif
