// Definitions of detail/engine/evaluate_thresholds.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/engine/evaluate_thresholds.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void check_latency(std::vector<threshold_violation>& out, const std::string& prefix, const call_stats& s,
                                     const latency_thresholds& t, const std::string& scope) {
    const auto lat = [&](const char* name, const std::optional<std::chrono::nanoseconds>& limit,
                         std::chrono::nanoseconds actual) {
        if (!limit) return;
        if (s.histogram.count() == 0) {
            out.push_back({prefix + name, "<= " + format_ms(*limit), "no calls completed",
                           "There is no latency evidence for " + scope + "; the objective cannot be confirmed."});
        } else if (actual > *limit) {
            out.push_back({prefix + name, "<= " + format_ms(*limit), format_ms(actual),
                           std::string("The slowest ") +
                               (std::string(name) == "max" ? "call" : std::string(name).substr(1) + "th percentile") +
                               " of " + scope + " is slower than allowed; look at the slow tail (server queueing, "
                               "head-of-line blocking, GC or lock contention)."});
        }
    };
    lat("p50", t.p50, s.latency.p50);
    lat("p90", t.p90, s.latency.p90);
    lat("p95", t.p95, s.latency.p95);
    lat("p99", t.p99, s.latency.p99);
    lat("p999", t.p999, s.latency.p999);
    lat("max", t.max, s.latency.max);
    if (t.error_rate) {
        if (s.calls() == 0) {
            out.push_back({prefix + "error_rate", "<= " + format_pct(*t.error_rate), "no calls completed",
                           "There is no evidence for " + scope + "'s error rate."});
        } else if (s.error_rate() > *t.error_rate) {
            std::string worst;
            std::uint64_t worst_n = 0;
            for (auto o : all_outcomes)
                if (o != outcome::ok && s.outcomes[o] > worst_n) worst_n = s.outcomes[o], worst = std::string(to_string(o));
            out.push_back({prefix + "error_rate", "<= " + format_pct(*t.error_rate),
                           format_pct(s.error_rate()) + " (" + std::to_string(s.outcomes.errors()) + " of " +
                               std::to_string(s.calls()) + ", mostly " + worst + ")",
                           "Too many calls of " + scope + " failed; most were " + worst + ": " +
                               std::string(meaning(outcome_from_name(worst))) + "."});
        }
    }
}

MCP_LOADTEST_DECL void check_count(std::vector<threshold_violation>& out, const char* metric,
                                   const std::optional<std::uint64_t>& limit, std::uint64_t actual, const char* what) {
    if (limit && actual > *limit)
        out.push_back({metric, "<= " + std::to_string(*limit), std::to_string(actual), what});
}

MCP_LOADTEST_DECL std::vector<threshold_violation> evaluate_thresholds(const load_report& r, const thresholds& t) {
    std::vector<threshold_violation> out;
    latency_thresholds overall{t.p50, t.p90, t.p95, t.p99, t.p999, t.max, t.error_rate};
    check_latency(out, "", r.overall, overall, "the run");
    check_count(out, "hangs", t.max_hangs, r.hangs(),
                "Calls went unanswered past their timeout: the server is slow or stuck under this load.");
    check_count(out, "deadlocks", t.max_deadlocks, r.deadlocks(),
                "Calls were never answered, even after the grace period: the server deadlocked.");
    check_count(out, "dropped", t.max_dropped, r.dropped,
                "Arrivals could not start because too many calls were in flight: the server cannot keep up "
                "with this arrival rate.");
    check_count(out, "protocol_violations", t.max_protocol_violations, r.protocol_violations,
                "The server broke the protocol (e.g. printed logs on stdout); clients may misread its output.");
    check_count(out, "schema_violations", t.max_schema_violations, r.schema_violations,
                "Messages broke a schema (a tool's outputSchema, or the MCP schema of the negotiated revision): "
                "clients that validate them will reject these results.");
    for (const auto& [o, limit] : t.max_outcomes) {
        const std::string name = "outcomes." + std::string(to_string(o));
        if (r.overall.outcomes[o] > limit)
            out.push_back({name, "<= " + std::to_string(limit), std::to_string(r.overall.outcomes[o]),
                           std::string("Calls ended as ") + std::string(to_string(o)) + ": " + std::string(meaning(o)) + "."});
    }
    for (const auto& [tool, lt] : t.per_tool) {
        auto it = r.per_tool.find(tool);
        if (it == r.per_tool.end()) {
            out.push_back({"tool:" + tool, "calls to " + tool, "none",
                           "The run never called this tool, so its objectives cannot be confirmed; check the mix."});
            continue;
        }
        check_latency(out, "tool:" + tool + ":", it->second, lt, "tool " + tool);
    }
    for (const auto& [step, lt] : t.per_step) {
        auto it = r.per_step.find(step);
        if (it == r.per_step.end()) {
            out.push_back({"step:" + step, "measured steps named " + step, "none",
                           "No scenario body measured a step of this name, so its objectives cannot be confirmed; "
                           "check the name given to iteration::measure()."});
            continue;
        }
        check_latency(out, "step:" + step + ":", it->second, lt, "step " + step);
    }
    if (r.failures.failed_checks > t.max_failed_checks) {
        const std::string first = r.failures.checks.empty()
                                      ? std::string()
                                      : " (first: \"" + r.failures.checks.front().message + "\", " +
                                            std::to_string(r.failures.checks.front().count) + "x)";
        out.push_back({"failed_checks", "<= " + std::to_string(t.max_failed_checks),
                       std::to_string(r.failures.failed_checks) + first,
                       "Scenario checks failed: the server answered, but not with what the scenario expects; see "
                       "report.failures.checks for each message and a sample."});
    }
    if (r.failures.exceptions > t.max_exceptions) {
        const std::string first = r.failures.exceptions_thrown.empty()
                                      ? std::string()
                                      : " (first: \"" + r.failures.exceptions_thrown.front().message + "\")";
        out.push_back({"exceptions", "<= " + std::to_string(t.max_exceptions),
                       std::to_string(r.failures.exceptions) + first,
                       "Scenario bodies threw; each iteration that threw stopped there. See "
                       "report.failures.exceptions_thrown."});
    }
    const bool wants_process = t.rss_growth_mb || t.leak_slope_mb_per_s || t.fd_growth || t.thread_growth;
    if (wants_process && r.processes.empty())
        out.push_back({"process", "process samples", "none",
                       "Resource objectives were set but no server process was sampled; set run_options.sample_interval."});
    for (const auto& p : r.processes) {
        const std::string prefix = "server[" + std::to_string(p.session) + "]:";
        // The process's own analysis (first in p.leaks), or a descendant's leak when that
        // one is worse: behind a wrapper (npx, uv run, a .cmd shim) the real server is a child.
        const auto find = [&](const char* resource, double (*measure)(const leak_analysis&)) -> const leak_analysis* {
            const leak_analysis* chosen = nullptr;
            for (const auto& l : p.leaks) {
                if (l.resource != resource) continue;
                const bool judged = l.verdict != leak_verdict::insufficient_data;
                if (!chosen || (judged && (chosen->verdict == leak_verdict::insufficient_data || measure(l) > measure(*chosen))))
                    chosen = &l;
            }
            return chosen;
        };
        const auto growth = [&](const char* metric, const char* resource, const std::optional<double>& limit,
                                const char* unit) {
            if (!limit) return;
            const leak_analysis* l = find(resource, [](const leak_analysis& a) { return a.predicted_growth; });
            if (!l || l->verdict == leak_verdict::insufficient_data) {
                out.push_back({prefix + metric, "<= " + format_num(*limit) + unit, "not enough samples",
                               "Too few samples after the warm-up to judge growth; run longer or sample more often."});
            } else if (l->predicted_growth > *limit) {
                out.push_back({prefix + metric, "<= " + format_num(*limit) + unit,
                               format_num(l->predicted_growth) + unit + " (R² " + format_num(l->fit.r2) + ")",
                               l->explanation});
            }
        };
        growth("rss_growth_mb", "rss_mb", t.rss_growth_mb, " MB");
        growth("fd_growth", "open_fds", t.fd_growth, " fds");
        growth("thread_growth", "threads", t.thread_growth, " threads");
        if (t.leak_slope_mb_per_s) {
            const leak_analysis* l = find("rss_mb", [](const leak_analysis& a) { return a.fit.slope_per_s; });
            if (!l || l->verdict == leak_verdict::insufficient_data)
                out.push_back({prefix + "leak_slope_mb_per_s", "<= " + format_num(*t.leak_slope_mb_per_s),
                               "not enough samples", "Too few samples after the warm-up to fit a slope."});
            else if (l->fit.slope_per_s > *t.leak_slope_mb_per_s)
                out.push_back({prefix + "leak_slope_mb_per_s", "<= " + format_num(*t.leak_slope_mb_per_s) + " MB/s",
                               format_num(l->fit.slope_per_s) + " MB/s (R² " + format_num(l->fit.r2) + ")",
                               l->explanation});
        }
    }
    return out;
}

}  // namespace mcp_loadtest::detail
