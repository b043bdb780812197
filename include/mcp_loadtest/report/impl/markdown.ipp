// Definitions of report/markdown.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/report/markdown.hpp>

namespace mcp_loadtest {

namespace detail {

MCP_LOADTEST_DECL std::string verdict_sentence_of(const load_report& r) {
    char figures[256];
    std::snprintf(figures, sizeof figures, "%llu calls at %.1f calls/s over %.1f s, error rate %s, p99 %s",
                  static_cast<unsigned long long>(r.overall.calls()), r.throughput_rps, r.duration_s,
                  format_pct(r.error_rate()).c_str(), format_ms(r.overall.latency.p99).c_str());
    if (r.aborted) return "The run was aborted (" + r.abort_reason + ") after " + figures + ".";
    if (r.passed) return "Every objective was met: " + std::string(figures) + ".";
    if (!r.violations.empty())
        return std::to_string(r.violations.size()) + " objective(s) missed, first " + r.violations.front().metric +
               " (expected " + r.violations.front().expected + ", got " + r.violations.front().actual + "); " +
               figures + ".";
    return std::string("The run failed: ") + figures + ".";
}

MCP_LOADTEST_DECL std::string md_row(const std::vector<std::string>& cells) {
    std::string s = "|";
    for (const auto& c : cells) s += " " + c + " |";
    return s + "\n";
}

MCP_LOADTEST_DECL std::string md_header(const std::vector<std::string>& cells, std::size_t text_columns) {
    std::string s = md_row(cells) + "|";
    for (std::size_t i = 0; i < cells.size(); ++i) s += i < text_columns ? " --- |" : " ---: |";
    return s + "\n";
}

MCP_LOADTEST_DECL std::vector<std::string> latency_cells(const std::string& scope, const call_stats& s) {
    const auto& l = s.latency;
    return {scope, std::to_string(s.calls()), std::to_string(s.outcomes.errors()), format_ms(l.p50),
            format_ms(l.p95), format_ms(l.p99), format_ms(l.p999), format_ms(l.max)};
}

MCP_LOADTEST_DECL std::string scope_label(const load_report& r, const std::string& key) {
    const std::string head = key.substr(0, key.find(' '));
    if (head != "tools/call" && r.per_method.count(head)) return key;
    return "tool " + key;
}

MCP_LOADTEST_DECL std::vector<std::string> progress_cells(const std::string& scope, const progress_stats& p) {
    const bool any = p.answered > 0;
    return {scope,
            std::to_string(p.asked),
            std::to_string(p.answered),
            std::to_string(p.notifications),
            any ? format_ms(p.time_to_first.p50) : "–",
            any ? format_ms(p.time_to_first.p99) : "–",
            std::to_string(p.violations)};
}

MCP_LOADTEST_DECL std::string process_label(const server_process_report& p) {
    return "server[" + std::to_string(p.session) + "] pid " + std::to_string(p.pid);
}

MCP_LOADTEST_DECL std::vector<std::string> findings_of(const load_report& r, const report_grades& g) {
    std::vector<std::string> out;
    for (const grade* x : {&g.latency, &g.errors, &g.resources})
        if (x->letter != '-') out.push_back(x->dimension + " " + x->letter_text() + ": " + x->meaning);
    // The slowest tool, when tools differ: where the tail lives.
    if (r.per_tool.size() > 1) {
        const auto slowest = std::max_element(r.per_tool.begin(), r.per_tool.end(), [](const auto& a, const auto& b) {
            return a.second.latency.p99 < b.second.latency.p99;
        });
        if (slowest->second.latency.p99 > r.overall.latency.p50 * 2)
            out.push_back("The slow tail is concentrated on " + slowest->first + " (p99 " +
                          format_ms(slowest->second.latency.p99) + " against " + format_ms(r.overall.latency.p99) +
                          " overall): start there.");
    }
    if (r.dropped)
        out.push_back(std::to_string(r.dropped) +
                      " arrivals could not start: the server fell behind the offered rate, so the figures describe a "
                      "lighter load than asked.");
    if (r.generator.saturated) out.push_back("The load generator itself was the bottleneck: " + r.generator.explanation);
    // Tokens are their own step: what getting them cost, and whether it held calls back.
    if (r.authorization) out.push_back("Authorization: " + r.authorization->explanation);
    if (r.breaking_stage) out.push_back("Breaking point: " + r.breaking_reason);
    for (const auto& p : r.processes)
        for (const auto& l : p.leaks)
            if (l.verdict == leak_verdict::leak) out.push_back(process_label(p) + " " + l.resource + ": " + l.explanation);
    return out;
}

}  // namespace detail

MCP_LOADTEST_DECL std::string to_markdown(const load_report& r) {
    using detail::markdown_cell;
    const report_grades g = grade_report(r);
    std::string s;
    s += std::string("## ") + (r.passed ? "✅ PASSED" : "❌ FAILED") + ": " +
         markdown_cell(r.server_name.empty() ? r.server : r.server_name, 120) + "\n\n";
    s += markdown_cell(detail::verdict_sentence_of(r), 2000) + "\n\n";
    s += "*" + markdown_cell(detail::workload_label(r)) + " load, " + std::to_string(r.sessions) + " session(s), " +
         markdown_cell(r.transport.empty() ? "stdio" : r.transport) + "; started " + markdown_cell(r.started_at) +
         "; run " + markdown_cell(r.run_id) + "; server: " + markdown_cell(r.server, 200) + "*\n\n";

    s += "### Grades\n\n" + detail::md_header({"Dimension", "Grade", "What this means"}, 3);
    for (const grade* x : {&g.latency, &g.errors, &g.resources})
        s += detail::md_row({x->dimension, "**" + x->letter_text() + "**", markdown_cell(x->meaning, 500)});
    s += "\n";

    s += "### Latency\n\n" +
         detail::md_header({"Scope", "Calls", "Errors", "p50", "p95", "p99", "p99.9", "max"});
    s += detail::md_row(detail::latency_cells("**overall**", r.overall));
    for (const auto& [tool, stats] : r.per_tool)
        s += detail::md_row(detail::latency_cells(markdown_cell(detail::scope_label(r, tool), 100), stats));
    for (const auto& [step, stats] : r.per_step) s += detail::md_row(detail::latency_cells("step " + markdown_cell(step, 80), stats));
    s += "\nThroughput " + detail::format_num(r.throughput_rps) + " calls/s; " + std::to_string(r.iterations_completed) +
         " of " + std::to_string(r.iterations_started) + " iterations completed; " + std::to_string(r.dropped) +
         " dropped.\n\n";

    if (!r.overall.progress.empty() || r.progress.total() > 0) {
        s += "### Progress\n\n" + detail::md_header({"Scope", "Asked", "Got progress", "Notifications", "First p50",
                                                       "First p99", "Broken in flight"});
        s += detail::md_row(detail::progress_cells("**overall**", r.overall.progress));
        for (const auto& [tool, stats] : r.per_tool)
            if (!stats.progress.empty())
                s += detail::md_row(detail::progress_cells(markdown_cell(detail::scope_label(r, tool), 100), stats.progress));
        s += "\nProgress rules broken: " + std::to_string(r.progress.wrong_token) + " wrong token, " +
             std::to_string(r.progress.after_result) + " after the result, " + std::to_string(r.progress.not_increasing) +
             " not increasing.\n\n";
        for (const auto& x : r.progress.samples) s += "- " + markdown_cell(x, 300) + "\n";
        if (!r.progress.samples.empty()) s += "\n";
    }

    s += "### Errors\n\n";
    if (r.overall.outcomes.errors() == 0 && r.failures.empty() && r.protocol_violations == 0 &&
        r.schema_violations == 0) {
        s += "None: every call ended `ok`.\n\n";
    } else {
        s += detail::md_header({"Outcome", "Count", "Share of calls"});
        for (auto o : all_outcomes)
            if (o != outcome::ok && r.overall.outcomes[o])
                s += detail::md_row({std::string(to_string(o)), std::to_string(r.overall.outcomes[o]),
                                     detail::format_pct(static_cast<double>(r.overall.outcomes[o]) /
                                                        static_cast<double>(std::max<std::uint64_t>(1, r.overall.calls())))});
        if (r.protocol_violations) s += detail::md_row({"protocol violations", std::to_string(r.protocol_violations), "–"});
        if (r.schema_violations) s += detail::md_row({"schema violations", std::to_string(r.schema_violations), "–"});
        if (r.failures.failed_checks) s += detail::md_row({"failed checks", std::to_string(r.failures.failed_checks), "–"});
        if (r.failures.exceptions) s += detail::md_row({"exceptions in scenarios", std::to_string(r.failures.exceptions), "–"});
        s += "\n";
        const auto samples = [&](const char* what, const std::vector<std::string>& list) {
            if (list.empty()) return;
            s += std::string("**") + what + "** (first " + std::to_string(list.size()) + "):\n\n";
            for (const auto& x : list) s += "- " + markdown_cell(x, 300) + "\n";
            s += "\n";
        };
        samples("Protocol violation samples", r.protocol_violation_samples);
        samples("Schema violation samples", r.schema_violation_samples);
        if (!r.failures.checks.empty() || !r.failures.exceptions_thrown.empty()) {
            s += detail::md_header({"Scenario failure", "Sample", "Count", "First iteration"}, 2);
            for (const auto& f : r.failures.checks)
                s += detail::md_row({"check: " + markdown_cell(f.message, 200), markdown_cell(f.sample, 200),
                                     std::to_string(f.count), std::to_string(f.first_iteration)});
            for (const auto& f : r.failures.exceptions_thrown)
                s += detail::md_row({"exception: " + markdown_cell(f.message, 200), markdown_cell(f.sample, 200),
                                     std::to_string(f.count), std::to_string(f.first_iteration)});
            s += "\n";
        }
    }

    s += "### Server processes\n\n";
    if (r.processes.empty()) {
        s += "No server process was sampled.\n\n";
    } else {
        s += detail::md_header({"Process", "Samples", "RSS MB start → end", "Peak RSS MB", "fds start → end",
                                "Threads start → end", "CPU %", "Leak verdicts"}, 8);
        for (const auto& p : r.processes) {
            std::string verdicts;
            for (const auto& l : p.leaks)
                verdicts += (verdicts.empty() ? "" : ", ") + l.resource + " " + std::string(to_string(l.verdict));
            s += detail::md_row(
                {detail::process_label(p), std::to_string(p.samples.size()),
                 detail::start_to_end(p, [](const process_sample& x) { return x.rss_mb; }),
                 detail::format_plain(p.stats.peak_rss_mb),
                 detail::start_to_end(p, [](const process_sample& x) { return static_cast<double>(x.open_fds); }),
                 detail::start_to_end(p, [](const process_sample& x) { return static_cast<double>(x.threads); }),
                 detail::format_plain(p.stats.avg_cpu_pct), verdicts.empty() ? "not analysed" : verdicts});
        }
        s += "\n";
    }

    s += "### Threshold violations\n\n";
    if (r.violations.empty()) {
        s += "None.\n\n";
    } else {
        s += detail::md_header({"Metric", "Expected", "Actual", "What it means"}, 4);
        for (const auto& v : r.violations)
            s += detail::md_row({markdown_cell(v.metric, 120), markdown_cell(v.expected, 120),
                                 markdown_cell(v.actual, 300), markdown_cell(v.meaning, 500)});
        s += "\n";
    }

    s += "### What this means\n\n";
    for (const auto& f : detail::findings_of(r, g)) s += "- " + markdown_cell(f, 600) + "\n";
    return s;
}

}  // namespace mcp_loadtest
