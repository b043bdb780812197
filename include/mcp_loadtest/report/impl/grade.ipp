// Definitions of report/grade.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/report/grade.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL void to_json(json& j, const grade& g) {
    j = json{{"dimension", g.dimension}, {"letter", g.letter_text()}, {"inputs", g.inputs}, {"meaning", g.meaning}};
}

MCP_LOADTEST_DECL void to_json(json& j, const report_grades& g) {
    j = json{{"latency", g.latency}, {"errors", g.errors}, {"resources", g.resources}};
}

namespace detail {

MCP_LOADTEST_DECL char worse_grade(char a, char b) noexcept { return std::max(a, b); }

MCP_LOADTEST_DECL char grade_by_limits(double value, double a, double b, double c, double d) noexcept {
    if (value <= a) return 'A';
    if (value <= b) return 'B';
    if (value <= c) return 'C';
    if (value <= d) return 'D';
    return 'F';
}

}  // namespace detail

MCP_LOADTEST_DECL grade grade_latency(const load_report& r) {
    grade g;
    g.dimension = "latency";
    const auto& l = r.overall.latency;
    const double p99 = detail::ms(l.p99), p50 = detail::ms(l.p50);
    const double ratio = p50 > 0 ? p99 / p50 : 0.0;
    const std::size_t missed = detail::violations_of(r, detail::latency_metrics);
    g.inputs = json{{"calls_measured", l.count}, {"p50_ms", p50}, {"p99_ms", p99}, {"tail_ratio", ratio},
                    {"latency_thresholds_missed", missed}};
    if (l.count == 0) {
        g.meaning = "No call was measured, so there is no latency to grade.";
        return g;
    }
    if (missed > 0) {
        g.letter = 'F';
        g.meaning = std::to_string(missed) + " latency objective(s) missed: callers wait longer than the service "
                                             "level you set (see the violations).";
        return g;
    }
    const char by_p99 = detail::grade_by_limits(p99, 100, 250, 1000, 5000);
    const char by_ratio = p99 >= 10 ? detail::grade_by_limits(ratio, 3, 5, 10, 50) : 'A';
    g.letter = detail::worse_grade(by_p99, by_ratio);
    const std::string p99_text = detail::format_ms(l.p99);
    switch (g.letter) {
        case 'A': g.meaning = "99% of calls ended within " + p99_text + " and the tail stays close to the median."; break;
        case 'B': g.meaning = "Responsive: 99% of calls within " + p99_text + ", with a modest slow tail."; break;
        case 'C':
            g.meaning = by_ratio >= by_p99 ? "A noticeable slow tail: the slowest 1% take " + detail::format_plain(ratio) +
                                                 "x the median; look for contention or queueing."
                                           : "Sluggish: 1 call in 100 takes longer than " + p99_text + ".";
            break;
        case 'D':
            g.meaning = "Slow: 1 call in 100 takes " + p99_text + " or more (" + detail::format_plain(ratio) +
                        "x the median); users will notice.";
            break;
        default:
            g.meaning = "Very slow tail: 1 call in 100 takes " + p99_text + " (" + detail::format_plain(ratio) +
                        "x the median); clients with timeouts will fail.";
    }
    return g;
}

MCP_LOADTEST_DECL grade grade_errors(const load_report& r) {
    grade g;
    g.dimension = "errors";
    const double rate = r.error_rate();
    std::size_t missed = 0;
    for (const auto& v : r.violations)
        if (detail::metric_is(v.metric, detail::error_metrics) ||
            v.metric.rfind("outcomes.", 0) == 0)
            ++missed;
    g.inputs = json{{"calls", r.overall.calls()},     {"errors", r.overall.outcomes.errors()},
                    {"error_rate", rate},             {"hangs", r.hangs()},
                    {"deadlocks", r.deadlocks()},     {"crashes", r.crashes()},
                    {"protocol_violations", r.protocol_violations},
                    {"schema_violations", r.schema_violations},
                    {"failed_checks", r.failures.failed_checks},
                    {"exceptions", r.failures.exceptions},
                    {"dropped", r.dropped},           {"late_replies", r.late_replies},
                    {"aborted", r.aborted},           {"error_thresholds_missed", missed}};
    if (r.overall.calls() == 0 && r.failures.empty() && !r.aborted) {
        g.meaning = "No call ended, so there are no errors to grade.";
        return g;
    }
    const std::string pct = detail::format_pct(rate);
    if (r.aborted || r.crashes() || r.deadlocks() || rate > 0.05 || missed > 0) {
        g.letter = 'F';
        if (r.aborted) g.meaning = "The run was stopped early: " + r.abort_reason;
        else if (r.crashes()) g.meaning = "The server crashed under load: every caller of that process lost its work.";
        else if (r.deadlocks()) g.meaning = "Calls never got an answer (deadlock): the server stops serving under this load.";
        else if (missed > 0) g.meaning = "An error objective was missed (see the violations).";
        else g.meaning = pct + " of calls failed: more than 1 in 20 callers get an error.";
    } else if (r.hangs() || r.protocol_violations || rate > 0.01) {
        g.letter = 'D';
        g.meaning = r.hangs() ? "Some calls hung past their timeout before answering: callers with deadlines fail."
                    : r.protocol_violations ? "The server broke the protocol: strict clients will drop the connection."
                                            : pct + " of calls failed: more than 1 in 100 callers get an error.";
    } else if (rate > 0.001 || r.schema_violations || !r.failures.empty() || r.dropped) {
        g.letter = 'C';
        g.meaning = r.dropped ? "Some arrivals could not start (the in-flight cap was reached): the load asked was not delivered."
                    : !r.failures.empty() ? "Scenario checks failed or threw: some replies were not what the test expects."
                    : r.schema_violations ? "Replies broke their declared schemas: clients that validate will reject them."
                                          : pct + " of calls failed: errors are rare but present.";
    } else if (r.overall.outcomes.errors() || r.late_replies) {
        g.letter = 'B';
        g.meaning = r.overall.outcomes.errors() ? "A few calls failed (" + pct + "); worth a look at the samples."
                                                : "Replies arrived after their calls had given up (late replies).";
    } else {
        g.letter = 'A';
        g.meaning = "Every call succeeded: no errors, hangs, crashes or protocol violations.";
    }
    return g;
}

MCP_LOADTEST_DECL grade grade_resources(const load_report& r) {
    grade g;
    g.dimension = "resources";
    // Graded over the series that were judged (leak or no leak); a series too short or too noisy
    // to judge is said so, never counted as a poor result.
    std::size_t analyses = 0, leaks = 0, not_judged = 0;
    double worst_share = 0;
    std::string worst, why_not_judged;
    for (const auto& p : r.processes)
        for (const auto& l : p.leaks) {
            ++analyses;
            if (l.verdict == leak_verdict::leak) ++leaks;
            if (l.verdict == leak_verdict::indeterminate || l.verdict == leak_verdict::insufficient_data) {
                if (not_judged++ == 0) why_not_judged = "server[" + std::to_string(p.session) + "] " + l.resource + ": " + l.explanation;
                continue;
            }
            const double share = l.threshold > 0 ? std::max(0.0, l.predicted_growth) / l.threshold : 0.0;
            if (share >= worst_share) {
                worst_share = share;
                worst = "server[" + std::to_string(p.session) + "] " + l.resource;
            }
        }
    const std::size_t missed = detail::violations_of(r, detail::resource_metrics);
    g.inputs = json{{"processes", r.processes.size()}, {"analyses", analyses},        {"leaks", leaks},
                    {"not_judged", not_judged},        {"worst_growth_share", worst_share}, {"worst", worst},
                    {"resource_thresholds_missed", missed}};
    if (analyses == 0 && missed == 0) {
        g.meaning = "No server process was sampled, so resources were not graded.";
        return g;
    }
    if (leaks > 0 || missed > 0) {
        g.letter = 'F';
        g.meaning = leaks ? "A resource grows steadily under load (a leak): a long-running server will run out of it."
                          : "A resource objective was missed (see the violations).";
        return g;
    }
    const std::string unjudged = not_judged == 0 ? std::string()
                                                 : " Not judged: " + std::to_string(not_judged) + " of " +
                                                       std::to_string(analyses) +
                                                       " series, too short or too noisy to tell growth from noise "
                                                       "(first, " + why_not_judged + ")";
    if (not_judged == analyses) {
        g.meaning = "Resources were not graded: run longer to know." + unjudged;
        return g;
    }
    g.letter = detail::grade_by_limits(worst_share, 0.25, 0.5, 1.0, 1.0);
    if (g.letter == 'F') g.letter = 'D';
    switch (g.letter) {
        case 'A': g.meaning = "Memory, descriptors and threads stayed flat."; break;
        case 'B': g.meaning = "Resources grew a little (" + worst + " used " + detail::format_pct(worst_share) +
                              " of its allowance): fine for this run, watch it in longer ones."; break;
        case 'C': g.meaning = "Growth is close to the allowance (" + worst + "); a longer soak would tell."; break;
        default:
            g.meaning = worst + " grew past its allowance, though not steadily enough to call it a leak: run a soak.";
    }
    g.meaning += unjudged;
    return g;
}

MCP_LOADTEST_DECL report_grades grade_report(const load_report& r) {
    return {grade_latency(r), grade_errors(r), grade_resources(r)};
}

}  // namespace mcp_loadtest
