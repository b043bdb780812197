// Leak detection on a server's samples (docs/load-testing.md#process-sampling-and-leak-detection): discard the
// warm-up, fit a straight line to each resource over time, and call it a leak
// when the line predicts more growth over the run than allowed and fits well.
//
//     auto findings = mlt::analyse_leaks(sampler.samples_of(session.pid()), {.warmup = 5s});
//     for (const auto& f : findings) CHECK_MESSAGE(f.verdict != mlt::leak_verdict::leak, f.explanation);
#pragma once

#include <mcp_loadtest/detail/format.hpp>
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
[[nodiscard]] inline trend_fit fit_linear(const std::vector<std::pair<double, double>>& points) {
    trend_fit f;
    f.points = points.size();
    if (points.empty()) return f;
    const double n = static_cast<double>(points.size());
    double t_mean = 0, y_mean = 0;
    bool flat = true;
    for (const auto& [t, y] : points) {
        t_mean += t;
        y_mean += y;
        flat = flat && y == points.front().second;
    }
    t_mean /= n;
    y_mean /= n;
    if (flat) {
        // Exactly, not via the sums: rounding in the mean would leave a tiny
        // SStot and make R² of a constant series arbitrary.
        f.intercept = points.front().second;
        f.r2 = 1.0;
        return f;
    }
    double sxx = 0, sxy = 0, syy = 0;
    for (const auto& [t, y] : points) {
        sxx += (t - t_mean) * (t - t_mean);
        sxy += (t - t_mean) * (y - y_mean);
        syy += (y - y_mean) * (y - y_mean);
    }
    if (sxx <= 0) {  // all at one instant: no trend can be measured
        f.intercept = y_mean;
        return f;
    }
    f.slope_per_s = sxy / sxx;
    f.intercept = y_mean - f.slope_per_s * t_mean;
    double ss_res = 0;
    for (const auto& [t, y] : points) {
        const double r = y - (f.intercept + f.slope_per_s * t);
        ss_res += r * r;
    }
    f.r2 = syy > 0 ? std::clamp(1.0 - ss_res / syy, 0.0, 1.0) : 1.0;
    return f;
}

enum class leak_verdict { no_leak, leak, indeterminate, insufficient_data };

[[nodiscard]] inline std::string_view to_string(leak_verdict v) noexcept {
    switch (v) {
        case leak_verdict::no_leak: return "no_leak";
        case leak_verdict::leak: return "leak";
        case leak_verdict::indeterminate: return "indeterminate";
        case leak_verdict::insufficient_data: return "insufficient_data";
    }
    return "unknown";
}

[[nodiscard]] inline std::optional<leak_verdict> leak_verdict_from_string(std::string_view s) noexcept {
    for (auto v : {leak_verdict::no_leak, leak_verdict::leak, leak_verdict::indeterminate,
                   leak_verdict::insufficient_data})
        if (to_string(v) == s) return v;
    return std::nullopt;
}

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

inline leak_analysis analyse_resource(const std::vector<process_sample>& kept, std::chrono::nanoseconds discarded,
                                      const leak_resource& res, double (*value)(const process_sample&),
                                      double threshold, const leak_options& opt) {
    leak_analysis a;
    a.resource = res.name;
    a.threshold = threshold;
    a.warmup_discarded = discarded;
    const std::string after = discarded > std::chrono::nanoseconds(0)
                                  ? " after a " + format_seconds(discarded) + " warm-up"
                                  : " (no warm-up discarded)";
    const std::string unit = res.unit;
    const std::string allowed = format_plain(threshold) + unit + " allowed";

    std::vector<std::pair<double, double>> points;
    points.reserve(kept.size());
    for (const auto& s : kept)
        points.emplace_back(std::chrono::duration<double>(s.at - kept.front().at).count(), value(s));
    a.fit = fit_linear(points);
    const auto span = kept.empty() ? std::chrono::nanoseconds(0) : kept.back().at - kept.front().at;

    if (kept.size() < std::max<std::size_t>(opt.min_points, 2) || span <= std::chrono::nanoseconds(0)) {
        a.verdict = leak_verdict::insufficient_data;
        a.explanation = "Only " + std::to_string(kept.size()) + " " + res.noun + " sample(s)" + after +
                        " (at least " + std::to_string(std::max<std::size_t>(opt.min_points, 2)) +
                        ", over some time, are needed): sample for longer than the warm-up, or more often.";
        return a;
    }
    a.predicted_growth = a.fit.slope_per_s * std::chrono::duration<double>(span).count();
    const std::string over = " over " + format_seconds(span);
    char r2[16];
    std::snprintf(r2, sizeof r2, "%.2f", a.fit.r2);
    const std::string trend = format_plain(a.fit.slope_per_s) + unit + "/s (R² " + r2 + ")";
    std::string noun = res.noun;
    noun[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(noun[0])));

    if (a.predicted_growth > threshold && a.fit.r2 >= opt.min_r2) {
        a.verdict = leak_verdict::leak;
        a.explanation = noun + " grew " + trend + after + ": " + format_plain(a.predicted_growth) + unit +
                        " predicted" + over + ", above the " + allowed + ". " + res.advice;
    } else if (a.predicted_growth > threshold) {
        a.verdict = leak_verdict::indeterminate;
        a.explanation = noun + " trends up " + trend + ", " + format_plain(a.predicted_growth) + unit + over +
                        " (above the " + allowed + "), but the fit is poor (R² below " + format_plain(opt.min_r2) +
                        "): too noisy to conclude. Run longer, or under steadier load, to tell a leak from noise.";
    } else {
        a.verdict = leak_verdict::no_leak;
        const bool flat = a.fit.slope_per_s == 0 && a.fit.r2 == 1.0;
        if (flat)
            a.explanation = noun + " stayed flat at " + format_plain(points.front().second) + res.level + over + after +
                            " (" + allowed + ").";
        else
            a.explanation = noun + " stayed within the " + allowed + ": " + format_plain(a.predicted_growth) + unit +
                            " predicted" + over + " (trend " + trend + ")" + after + ".";
    }
    return a;
}

}  // namespace detail

/// Analyses RSS, open descriptors and threads of one process (pass
/// `sampler.samples_of(pid)`, in time order), in that order. As docs/load-testing.md#process-sampling-and-leak-detection describes:
/// samples in the warm-up are discarded; a line is fitted to the rest;
/// growth = slope × analysed duration. Growth above the threshold is a leak
/// when R² ≥ min_r2, else indeterminate; otherwise no leak. A series that
/// only grew during the warm-up, or is flat, is no leak.
[[nodiscard]] inline std::vector<leak_analysis> analyse_leaks(const std::vector<process_sample>& samples,
                                                               const leak_options& options) {
    std::vector<process_sample> kept;
    std::chrono::nanoseconds discarded{0};
    if (!samples.empty()) {
        const auto begin = samples.front().at;
        const auto warmup = std::chrono::duration_cast<std::chrono::nanoseconds>(options.warmup);
        for (const auto& s : samples)
            if (s.at - begin >= warmup) kept.push_back(s);
        discarded = kept.empty() ? samples.back().at - begin : kept.front().at - begin;
    }
    static constexpr detail::leak_resource rss{
        "rss_mb", "RSS", " MB", " MB",
        "Each call probably retains memory; look for caches, lists or maps that grow per call and are never trimmed."};
    static constexpr detail::leak_resource fds{
        "open_fds", "open file descriptors", " fds", "",
        "Something opens files, sockets or pipes and never closes them; check that every open is closed on every "
        "path (with-blocks, finally, RAII)."};
    static constexpr detail::leak_resource threads{
        "threads", "thread count", " threads", "",
        "Threads are started and never joined; look for a thread or executor created per call instead of reused."};
    return {
        detail::analyse_resource(kept, discarded, rss, [](const process_sample& s) { return s.rss_mb; },
                                 options.rss_growth_mb, options),
        detail::analyse_resource(kept, discarded, fds,
                                 [](const process_sample& s) { return static_cast<double>(s.open_fds); },
                                 options.fd_growth, options),
        detail::analyse_resource(kept, discarded, threads,
                                 [](const process_sample& s) { return static_cast<double>(s.threads); },
                                 options.thread_growth, options),
    };
}

/// True if any analysis found a leak.
[[nodiscard]] inline bool has_leak(const std::vector<leak_analysis>& analyses) noexcept {
    return std::any_of(analyses.begin(), analyses.end(),
                       [](const leak_analysis& a) { return a.verdict == leak_verdict::leak; });
}

/// A descendant of a sampled server (a worker, the real server behind an
/// `npx` / `uv run` wrapper): its figures and leak verdicts.
struct descendant_process_report {
    pid_t pid = 0;
    pid_t parent = 0;     ///< when last sampled
    std::string command;  ///< its command line when first found
    process_stats stats;
    std::vector<leak_analysis> leaks;
    std::vector<process_sample> samples;

    /// "pid 123 (`python3 worker.py`, child of pid 100)", for messages.
    [[nodiscard]] std::string describe() const {
        return "pid " + std::to_string(pid) + " (`" + command + "`, child of pid " + std::to_string(parent) + ")";
    }
};

/// Analyses every descendant the sampler found below `root`, as
/// analyse_leaks() does the root, each with its own warm-up from its own
/// first sample.
[[nodiscard]] inline std::vector<descendant_process_report> analyse_descendants(const process_sampler& sampler,
                                                                                pid_t root,
                                                                                const leak_options& options) {
    std::vector<descendant_process_report> out;
    for (const auto& d : sampler.descendants_of(root)) {
        descendant_process_report r;
        r.pid = d.pid;
        r.parent = d.parent;
        r.command = d.command;
        r.samples = sampler.samples_of(d.pid);
        r.stats = summarize(r.samples);
        r.leaks = analyse_leaks(r.samples, options);
        out.push_back(std::move(r));
    }
    return out;
}

/// The leaks found in descendants, each explanation prefixed with which
/// process leaked: "descendant pid 123 (`...`, child of pid 100): RSS grew ...".
[[nodiscard]] inline std::vector<leak_analysis> descendant_leaks(const std::vector<descendant_process_report>& ds) {
    std::vector<leak_analysis> out;
    for (const auto& d : ds)
        for (const auto& l : d.leaks)
            if (l.verdict == leak_verdict::leak) {
                out.push_back(l);
                out.back().explanation = "descendant " + d.describe() + ": " + l.explanation;
            }
    return out;
}

// ---- JSON (durations as integer nanoseconds, the verdict as its name) ---------

inline void to_json(json& j, const trend_fit& f) {
    j = json{{"slope_per_s", f.slope_per_s}, {"intercept", f.intercept}, {"r2", f.r2}, {"points", f.points}};
}
inline void from_json(const json& j, trend_fit& f) {
    f.slope_per_s = j.at("slope_per_s").get<double>();
    f.intercept = j.at("intercept").get<double>();
    f.r2 = j.at("r2").get<double>();
    f.points = j.at("points").get<std::size_t>();
}

inline void to_json(json& j, const leak_verdict& v) { j = std::string(to_string(v)); }
inline void from_json(const json& j, leak_verdict& v) {
    const auto name = j.get<std::string>();
    const auto parsed = leak_verdict_from_string(name);
    if (!parsed) throw std::invalid_argument("unknown leak_verdict \"" + name + "\"");
    v = *parsed;
}

inline void to_json(json& j, const leak_analysis& a) {
    j = json{{"resource", a.resource},
             {"verdict", a.verdict},
             {"fit", a.fit},
             {"predicted_growth", a.predicted_growth},
             {"threshold", a.threshold},
             {"warmup_discarded_ns", a.warmup_discarded.count()},
             {"explanation", a.explanation}};
}
inline void from_json(const json& j, leak_analysis& a) {
    a.resource = j.at("resource").get<std::string>();
    a.verdict = j.at("verdict").get<leak_verdict>();
    a.fit = j.at("fit").get<trend_fit>();
    a.predicted_growth = j.at("predicted_growth").get<double>();
    a.threshold = j.at("threshold").get<double>();
    a.warmup_discarded = std::chrono::nanoseconds(j.at("warmup_discarded_ns").get<std::int64_t>());
    a.explanation = j.at("explanation").get<std::string>();
}

inline void to_json(json& j, const descendant_process_report& d) {
    j = json{{"pid", d.pid},     {"parent", d.parent}, {"command", d.command},
             {"stats", d.stats}, {"leaks", d.leaks},   {"samples", d.samples}};
}
inline void from_json(const json& j, descendant_process_report& d) {
    d.pid = j.at("pid").get<pid_t>();
    d.parent = j.at("parent").get<pid_t>();
    d.command = j.at("command").get<std::string>();
    d.stats = j.at("stats").get<process_stats>();
    d.leaks = j.at("leaks").get<std::vector<leak_analysis>>();
    d.samples = j.at("samples").get<std::vector<process_sample>>();
}

}  // namespace mcp_loadtest
