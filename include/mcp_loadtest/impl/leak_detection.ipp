// Definitions of leak_detection.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/leak_detection.hpp>

#include <mcp_loadtest/detail/text/command_text.hpp>

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

MCP_LOADTEST_DECL trend_fit fit_linear(const std::vector<std::pair<double, double>>& points) {
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

MCP_LOADTEST_DECL std::string_view to_string(leak_verdict v) noexcept {
    switch (v) {
        case leak_verdict::no_leak: return "no_leak";
        case leak_verdict::leak: return "leak";
        case leak_verdict::indeterminate: return "indeterminate";
        case leak_verdict::insufficient_data: return "insufficient_data";
    }
    return "unknown";
}

MCP_LOADTEST_DECL std::optional<leak_verdict> leak_verdict_from_string(std::string_view s) noexcept {
    for (auto v : {leak_verdict::no_leak, leak_verdict::leak, leak_verdict::indeterminate,
                   leak_verdict::insufficient_data})
        if (to_string(v) == s) return v;
    return std::nullopt;
}

namespace detail {

MCP_LOADTEST_DECL leak_analysis analyse_resource(const std::vector<process_sample>& kept, std::chrono::nanoseconds discarded,
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

MCP_LOADTEST_DECL std::vector<leak_analysis> analyse_leaks(const std::vector<process_sample>& samples,
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

MCP_LOADTEST_DECL bool has_leak(const std::vector<leak_analysis>& analyses) noexcept {
    return std::any_of(analyses.begin(), analyses.end(),
                       [](const leak_analysis& a) { return a.verdict == leak_verdict::leak; });
}

MCP_LOADTEST_DECL std::string descendant_process_report::describe() const {
    return "pid " + std::to_string(pid) + " (`" + detail::short_command(command) + "`, child of pid " + std::to_string(parent) + ")";
}

MCP_LOADTEST_DECL std::vector<descendant_process_report> analyse_descendants(const process_sampler& sampler,
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

MCP_LOADTEST_DECL std::vector<leak_analysis> descendant_leaks(const std::vector<descendant_process_report>& ds) {
    std::vector<leak_analysis> out;
    for (const auto& d : ds)
        for (const auto& l : d.leaks)
            if (l.verdict == leak_verdict::leak) {
                out.push_back(l);
                out.back().explanation = "descendant " + d.describe() + ": " + l.explanation;
            }
    return out;
}

MCP_LOADTEST_DECL void to_json(json& j, const trend_fit& f) {
    j = json{{"slope_per_s", f.slope_per_s}, {"intercept", f.intercept}, {"r2", f.r2}, {"points", f.points}};
}

MCP_LOADTEST_DECL void from_json(const json& j, trend_fit& f) {
    f.slope_per_s = j.at("slope_per_s").get<double>();
    f.intercept = j.at("intercept").get<double>();
    f.r2 = j.at("r2").get<double>();
    f.points = j.at("points").get<std::size_t>();
}

MCP_LOADTEST_DECL void to_json(json& j, const leak_verdict& v) { j = std::string(to_string(v)); }

MCP_LOADTEST_DECL void from_json(const json& j, leak_verdict& v) {
    const auto name = j.get<std::string>();
    const auto parsed = leak_verdict_from_string(name);
    if (!parsed) throw std::invalid_argument("unknown leak_verdict \"" + name + "\"");
    v = *parsed;
}

MCP_LOADTEST_DECL void to_json(json& j, const leak_analysis& a) {
    j = json{{"resource", a.resource},
             {"verdict", a.verdict},
             {"fit", a.fit},
             {"predicted_growth", a.predicted_growth},
             {"threshold", a.threshold},
             {"warmup_discarded_ns", a.warmup_discarded.count()},
             {"explanation", a.explanation}};
}

MCP_LOADTEST_DECL void from_json(const json& j, leak_analysis& a) {
    a.resource = j.at("resource").get<std::string>();
    a.verdict = j.at("verdict").get<leak_verdict>();
    a.fit = j.at("fit").get<trend_fit>();
    a.predicted_growth = j.at("predicted_growth").get<double>();
    a.threshold = j.at("threshold").get<double>();
    a.warmup_discarded = std::chrono::nanoseconds(j.at("warmup_discarded_ns").get<std::int64_t>());
    a.explanation = j.at("explanation").get<std::string>();
}

MCP_LOADTEST_DECL void to_json(json& j, const descendant_process_report& d) {
    j = json{{"pid", d.pid},     {"parent", d.parent}, {"command", d.command},
             {"stats", d.stats}, {"leaks", d.leaks},   {"samples", d.samples}};
}

MCP_LOADTEST_DECL void from_json(const json& j, descendant_process_report& d) {
    d.pid = j.at("pid").get<pid_t>();
    d.parent = j.at("parent").get<pid_t>();
    d.command = j.at("command").get<std::string>();
    d.stats = j.at("stats").get<process_stats>();
    d.leaks = j.at("leaks").get<std::vector<leak_analysis>>();
    d.samples = j.at("samples").get<std::vector<process_sample>>();
}

}  // namespace mcp_loadtest
