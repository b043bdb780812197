// Definitions of report/html.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/report/html.hpp>

namespace mcp_loadtest {

namespace detail {

MCP_LOADTEST_DECL std::string td(const std::string& text, const char* cls) {
    return std::string("<td") + (cls ? std::string(" class=\"") + cls + "\"" : "") + ">" + html_escape(text) + "</td>";
}

MCP_LOADTEST_DECL std::string html_table(const std::vector<std::string>& header,
                                         const std::vector<std::vector<std::string>>& rows,
                                         const char* id) {
    std::string s = std::string("<table") + (id ? std::string(" id=\"") + id + "\"" : "") + "><thead><tr>";
    for (const auto& h : header) s += "<th>" + html_escape(h) + "</th>";
    s += "</tr></thead><tbody>\n";
    for (const auto& row : rows) {
        s += "<tr>";
        for (std::size_t i = 0; i < row.size(); ++i) s += td(row[i], i == 0 || row[i].size() > 24 ? "text" : nullptr);
        s += "</tr>\n";
    }
    return s + "</tbody></table>\n";
}

MCP_LOADTEST_DECL std::string chart_with_data(const line_chart& c, const std::string& x_name, std::size_t max_rows) {
    std::string s = "<figure>" + to_svg(c) + "<details><summary>numbers: " + html_escape(c.title) + "</summary>";
    std::vector<std::string> header{x_name};
    for (const auto& series : c.series) header.push_back(series.name + " (" + c.y_label + ")");
    std::vector<std::vector<std::string>> rows;
    // Series of one chart share their x values where they come from one source; a row per point of the first.
    std::size_t longest = 0;
    for (const auto& series : c.series) longest = std::max(longest, series.points.size());
    for (std::size_t i = 0; i < longest && i < max_rows; ++i) {
        std::vector<std::string> row;
        const chart_series* first = nullptr;
        for (const auto& series : c.series)
            if (i < series.points.size()) { first = &series; break; }
        row.push_back(first ? format_plain(first->points[i].first) : "");
        for (const auto& series : c.series) row.push_back(i < series.points.size() ? format_plain(series.points[i].second) : "");
        rows.push_back(std::move(row));
    }
    s += html_table(header, rows) + "</details></figure>\n";
    return s;
}

MCP_LOADTEST_DECL line_chart percentile_chart(const latency_histogram& h, std::string title) {
    line_chart c;
    c.title = std::move(title);
    c.x_label = "percentile (log scale of 1/(1-p))";
    c.y_label = "ms";
    c.x_ticks = {{0, "0%"}, {1, "90%"}, {2, "99%"}, {3, "99.9%"}, {4, "99.99%"}};
    chart_series s{"latency", chart_colours[0], {}};
    if (!h.empty())
        for (int i = 0; i <= 40; ++i) {
            const double x = i / 10.0;
            const double p = 100.0 * (1.0 - std::pow(10.0, -x));
            s.points.emplace_back(x, ms(h.percentile(p)));
        }
    c.series.push_back(std::move(s));
    return c;
}

MCP_LOADTEST_DECL double timeline_bucket_s(const load_report& r) {
    for (const auto& i : r.intervals)
        if (i.length_s > 0) return i.length_s;
    if (r.timeline.size() >= 2 && r.timeline[1].at_s > r.timeline[0].at_s) return r.timeline[1].at_s - r.timeline[0].at_s;
    return 1.0;
}

}  // namespace detail

MCP_LOADTEST_DECL std::string to_html(const load_report& r) {
    using detail::html_escape;
    using detail::format_ms;
    using detail::format_plain;
    const report_grades g = grade_report(r);
    const std::string name = r.server_name.empty() ? r.server : r.server_name;
    std::string s = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
                    "<title>" + std::string(r.passed ? "PASSED" : "FAILED") + " · " + html_escape(name.substr(0, 120)) +
                    " · mcp-loadtest</title><style>" + std::string(detail::html_style) + "</style></head><body>\n";
    s += "<div class=\"verdict " + std::string(r.passed ? "pass" : "fail") + "\"><h1 id=\"verdict\">" +
         (r.passed ? "PASSED" : "FAILED") + ": " + html_escape(name.substr(0, 200)) + "</h1><div id=\"verdict-sentence\">" +
         html_escape(detail::verdict_sentence_of(r)) + "</div></div>\n";
    s += "<p class=\"meta\">" + html_escape(detail::workload_label(r)) + " load, " + std::to_string(r.sessions) + " session(s), " +
         html_escape(r.transport) + ", " + format_plain(r.duration_s) + " s; started " + html_escape(r.started_at) +
         "; run " + html_escape(r.run_id) + "<br>server: <code>" + html_escape(r.server) + "</code> " +
         html_escape(r.server_version) + " (protocol " + html_escape(r.protocol_version) + ")</p>\n";

    s += "<h2>Grades</h2><table id=\"grades\"><thead><tr><th>Dimension</th><th>Grade</th><th>What this means</th></tr></thead><tbody>\n";
    for (const grade* x : {&g.latency, &g.errors, &g.resources})
        s += "<tr><td>" + x->dimension + "</td><td class=\"grade g" + x->letter_text() + "\">" + x->letter_text() +
             "</td><td class=\"text\">" + html_escape(x->meaning) + "</td></tr>\n";
    s += "</tbody></table>\n";

    // Latency: the table, then the charts.
    const auto latency_row = [](const std::string& scope, const call_stats& st) {
        const auto& l = st.latency;
        return std::vector<std::string>{scope,         std::to_string(st.calls()), std::to_string(st.outcomes.errors()),
                                        format_ms(l.p50), format_ms(l.p95), format_ms(l.p99), format_ms(l.p999),
                                        format_ms(l.max)};
    };
    std::vector<std::vector<std::string>> rows{latency_row("overall", r.overall)};
    for (const auto& [tool, st] : r.per_tool) rows.push_back(latency_row(detail::scope_label(r, tool), st));
    for (const auto& [step, st] : r.per_step) rows.push_back(latency_row("step " + step, st));
    s += "<h2>Latency</h2>" +
         detail::html_table({"Scope", "Calls", "Errors", "p50", "p95", "p99", "p99.9", "max"}, rows, "latency") +
         "<p>Throughput <span id=\"throughput\">" + detail::format_num(r.throughput_rps) + "</span> calls/s; " +
         std::to_string(r.iterations_completed) + " of " + std::to_string(r.iterations_started) +
         " iterations completed; " + std::to_string(r.dropped) + " dropped.</p>\n";

    s += "<div class=\"charts\">";
    s += detail::chart_with_data(detail::percentile_chart(r.overall.histogram, "Latency by percentile (all calls)"),
                                 "log10(1/(1-p))");
    {
        detail::line_chart c;
        c.title = "Latency over time";
        c.x_label = "seconds into the run";
        c.y_label = "ms";
        detail::chart_series p50{"p50", detail::chart_colours[0], {}}, p99{"p99", detail::chart_colours[1], {}};
        for (const auto& i : r.intervals) {
            if (!i.tag.empty() || i.count == 0) continue;
            try {
                const auto h = i.histogram();
                p50.points.emplace_back(i.at_s, detail::ms(h.percentile(50)));
                p99.points.emplace_back(i.at_s, detail::ms(h.percentile(99)));
            } catch (const std::exception&) {
                // A damaged interval is left out of the chart; the JSON keeps it for a closer look.
            }
        }
        if (p50.points.empty()) c.title += " (no per-interval histograms in this report)";
        c.series = {std::move(p50), std::move(p99)};
        s += detail::chart_with_data(c, "at_s");
    }
    {
        detail::line_chart c;
        c.title = "Throughput over time";
        c.x_label = "seconds into the run";
        c.y_label = "calls/s";
        const double bucket = detail::timeline_bucket_s(r);
        detail::chart_series done{"completed", detail::chart_colours[2], {}}, errors{"errors", detail::chart_colours[1], {}};
        for (const auto& t : r.timeline) {
            // The last bucket is usually cut short by the end of the run: its rate is over what it covered.
            const double covered = r.duration_s > t.at_s ? std::min(bucket, r.duration_s - t.at_s) : bucket;
            if (covered < bucket * 0.1) continue;  // a sliver: its rate would be noise
            done.points.emplace_back(t.at_s, static_cast<double>(t.completed) / covered);
            errors.points.emplace_back(t.at_s, static_cast<double>(t.errors) / covered);
        }
        c.series = {std::move(done), std::move(errors)};
        s += detail::chart_with_data(c, "at_s");
    }
    s += "</div>\n";

    if (!r.overall.progress.empty() || r.progress.total() > 0) {
        rows = {detail::progress_cells("overall", r.overall.progress)};
        for (const auto& [tool, st] : r.per_tool)
            if (!st.progress.empty()) rows.push_back(detail::progress_cells(detail::scope_label(r, tool), st.progress));
        s += "<h2>Progress</h2>" +
             detail::html_table({"Scope", "Asked", "Got progress", "Notifications", "First p50", "First p99",
                                 "Broken in flight"},
                                rows, "progress") +
             "<p>Progress rules broken: " + std::to_string(r.progress.wrong_token) + " wrong token, " +
             std::to_string(r.progress.after_result) + " after the result, " +
             std::to_string(r.progress.not_increasing) + " not increasing.</p>\n";
    }

    // Errors.
    s += "<h2>Errors</h2>";
    rows.clear();
    for (auto o : all_outcomes)
        if (o != outcome::ok && r.overall.outcomes[o])
            rows.push_back({std::string(to_string(o)), std::to_string(r.overall.outcomes[o])});
    if (r.protocol_violations) rows.push_back({"protocol violations", std::to_string(r.protocol_violations)});
    if (r.schema_violations) rows.push_back({"schema violations", std::to_string(r.schema_violations)});
    if (r.failures.failed_checks) rows.push_back({"failed checks", std::to_string(r.failures.failed_checks)});
    if (r.failures.exceptions) rows.push_back({"exceptions in scenarios", std::to_string(r.failures.exceptions)});
    if (rows.empty()) s += "<p>None: every call ended ok.</p>\n";
    else s += detail::html_table({"Category", "Count"}, rows, "errors");
    const auto sample_list = [&](const char* what, const std::vector<std::string>& list) {
        if (list.empty()) return;
        s += std::string("<p>") + what + ":</p><ul>";
        for (const auto& x : list) s += "<li><code>" + html_escape(x.substr(0, 600)) + "</code></li>";
        s += "</ul>\n";
    };
    sample_list("Protocol violation samples", r.protocol_violation_samples);
    sample_list("Progress rules broken", r.progress.samples);
    sample_list("Schema violation samples", r.schema_violation_samples);
    if (!r.failures.checks.empty() || !r.failures.exceptions_thrown.empty()) {
        rows.clear();
        for (const auto& f : r.failures.checks)
            rows.push_back({"check: " + f.message, std::to_string(f.count), std::to_string(f.first_iteration), f.sample});
        for (const auto& f : r.failures.exceptions_thrown)
            rows.push_back({"exception: " + f.message, std::to_string(f.count), std::to_string(f.first_iteration), f.sample});
        s += detail::html_table({"Scenario failure", "Count", "First iteration", "Sample"}, rows, "failures");
    }

    // Server processes.
    s += "<h2>Server processes</h2>";
    if (r.processes.empty()) {
        s += "<p>No server process was sampled.</p>\n";
    } else {
        rows.clear();
        for (const auto& p : r.processes) {
            std::string verdicts;
            for (const auto& l : p.leaks)
                verdicts += (verdicts.empty() ? "" : "; ") + l.resource + " " + std::string(to_string(l.verdict)) +
                            (l.verdict == leak_verdict::no_leak ? "" : ": " + l.explanation);
            rows.push_back({detail::process_label(p), std::to_string(p.samples.size()),
                            detail::start_to_end(p, [](const process_sample& x) { return x.rss_mb; }),
                            format_plain(p.stats.peak_rss_mb),
                            detail::start_to_end(p, [](const process_sample& x) { return static_cast<double>(x.open_fds); }),
                            detail::start_to_end(p, [](const process_sample& x) { return static_cast<double>(x.threads); }),
                            format_plain(p.stats.avg_cpu_pct), verdicts.empty() ? "not analysed" : verdicts});
        }
        s += detail::html_table({"Process", "Samples", "RSS MB start → end", "Peak RSS MB", "fds start → end",
                                 "Threads start → end", "CPU %", "Leak verdicts"},
                                rows, "processes");
        struct resource_chart {
            const char* title;
            const char* unit;
            double (*get)(const process_sample&);
        };
        const resource_chart charts[] = {
            {"RSS over time", "MB", [](const process_sample& x) { return x.rss_mb; }},
            {"Open descriptors over time", "fds", [](const process_sample& x) { return static_cast<double>(x.open_fds); }},
            {"Threads over time", "threads", [](const process_sample& x) { return static_cast<double>(x.threads); }}};
        s += "<div class=\"charts\">";
        for (const auto& rc : charts) {
            detail::line_chart c;
            c.title = rc.title;
            c.x_label = "seconds into the run";
            c.y_label = rc.unit;
            c.width = 370;
            c.height = 240;
            std::size_t colour = 0;
            for (const auto& p : r.processes) {
                detail::chart_series series{"server[" + std::to_string(p.session) + "]",
                                            detail::chart_colours[colour++ % std::size(detail::chart_colours)], {}};
                for (const auto& x : p.samples) series.points.emplace_back(static_cast<double>(x.at.count()) / 1e9, rc.get(x));
                c.series.push_back(std::move(series));
            }
            s += detail::chart_with_data(c, "seconds");
        }
        s += "</div>\n";
    }

    // Violations and findings.
    s += "<h2>Threshold violations</h2>";
    if (r.violations.empty()) {
        s += "<p>None.</p>\n";
    } else {
        rows.clear();
        for (const auto& v : r.violations) rows.push_back({v.metric, v.expected, v.actual, v.meaning});
        s += detail::html_table({"Metric", "Expected", "Actual", "What it means"}, rows, "violations");
    }
    s += "<h2>What this means</h2><ul id=\"findings\">";
    for (const auto& f : detail::findings_of(r, g)) s += "<li>" + html_escape(f) + "</li>";
    s += "</ul>\n<p class=\"meta\">mcp-loadtest load report, schema mcp-loadtest/load_report/v1.</p>\n</body></html>\n";
    return s;
}

}  // namespace mcp_loadtest
