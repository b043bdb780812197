// Definitions of report/compare_servers.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/report/compare_servers.hpp>

namespace mcp_loadtest {

namespace detail {

MCP_LOADTEST_DECL std::string versus_text(change_verdict v) {
    switch (v) {
        case change_verdict::regressed: return "significantly worse";
        case change_verdict::improved: return "significantly better";
        case change_verdict::unchanged: return "indistinguishable";
        case change_verdict::inconclusive: return "inconclusive";
    }
    return "inconclusive";
}

}  // namespace detail

MCP_LOADTEST_DECL server_comparison side_by_side(std::vector<std::string> names, std::vector<load_report> reports,
                                                 const comparison_rules& rules) {
    if (reports.size() < 2 || names.size() != reports.size())
        throw std::invalid_argument("side_by_side needs at least two reports and one name per report");
    server_comparison out;
    out.names = std::move(names);
    out.reports = std::move(reports);
    for (std::size_t i = 1; i < out.reports.size(); ++i) {
        auto c = compare(out.reports[0], out.reports[i], rules);
        std::erase_if(c.mismatches, [](const std::string& m) { return m.starts_with("the server differs"); });
        c.advice = out.names[i] + " compared with " + out.names[0] + ".";
        out.against_first.push_back(std::move(c));
    }
    for (const auto& m : out.against_first.front().metrics) {
        if (m.scope.starts_with("server[") || m.scope.starts_with("step ")) continue;
        server_metric_row row;
        row.scope = m.scope;
        row.metric = m.metric;
        row.unit = m.unit;
        row.higher_is_better = m.higher_is_better;
        row.values.push_back(m.baseline);
        row.versus_first.push_back("baseline");
        for (const auto& c : out.against_first) {
            const auto* x = c.find(m.scope, m.metric);
            row.values.push_back(x ? x->current : std::nan(""));
            row.versus_first.push_back(x ? detail::versus_text(x->verdict) : "inconclusive");
        }
        for (std::size_t i = 1; i < row.values.size(); ++i) {
            const double v = row.values[i], best = row.values[row.winner];
            if (std::isnan(v)) continue;
            if (std::isnan(best) || (row.higher_is_better ? v > best : v < best)) row.winner = i;
        }
        row.tie = std::all_of(row.values.begin(), row.values.end(), [&](double v) { return v == row.values.front(); });
        out.rows.push_back(std::move(row));
    }
    return out;
}

MCP_LOADTEST_DECL asio::awaitable<server_comparison> compare_servers(std::vector<named_server> servers, workload load,
                                                                     iteration_body body, thresholds objectives,
                                                                     run_options options, comparison_rules rules) {
    if (servers.size() < 2)
        throw std::invalid_argument("compare_servers needs at least two servers (it compares each with the first)");
    std::vector<std::string> names;
    std::vector<load_report> reports;
    for (auto& s : servers) {
        names.push_back(s.name);
        iteration_body each = body;
        load_report r = co_await run(s.server, load, std::move(each), objectives, options);
        reports.push_back(std::move(r));
    }
    co_return side_by_side(std::move(names), std::move(reports), rules);
}

MCP_LOADTEST_DECL asio::awaitable<server_comparison> compare_servers(std::vector<named_server> servers, workload load,
                                                                     iteration_body body, run_options options) {
    return compare_servers(std::move(servers), std::move(load), std::move(body), thresholds{}, std::move(options),
                           comparison_rules{});
}

MCP_LOADTEST_DECL void to_json(json& j, const server_metric_row& r) {
    json values = json::array();
    for (double v : r.values) values.push_back(detail::finite_or_null(v));
    j = json{{"scope", r.scope},   {"metric", r.metric}, {"unit", r.unit}, {"higher_is_better", r.higher_is_better},
             {"values", values},   {"winner", r.winner}, {"tie", r.tie}, {"versus_first", r.versus_first}};
}

MCP_LOADTEST_DECL void to_json(json& j, const server_comparison& c) {
    j = json{{"schema", "mcp-loadtest/server_comparison/v1"},
             {"servers", c.names},
             {"rows", c.rows},
             {"against_first", c.against_first},
             {"reports", c.reports}};
}

namespace detail {

MCP_LOADTEST_DECL std::string comparison_html_escape(std::string_view s) {
    std::string out;
    for (char ch : s) {
        switch (ch) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += ch;
        }
    }
    return out;
}

MCP_LOADTEST_DECL std::string md_cell(std::string_view s) {
    std::string out;
    for (char ch : s) out += ch == '|' ? std::string("\\|") : ch == '\n' ? std::string(" ") : std::string(1, ch);
    return out;
}

MCP_LOADTEST_DECL std::string value_text(double v, const std::string& unit) {
    if (!std::isfinite(v)) return "n/a";
    return unit == "%" ? fixed(100 * v, 2) + " %" : fixed(v, unit == "ms" ? 2 : 1) + " " + unit;
}

MCP_LOADTEST_DECL std::string change_text(const metric_comparison& m) { return describe_change(m); }

MCP_LOADTEST_DECL const char* verdict_mark(change_verdict v) {
    switch (v) {
        case change_verdict::regressed: return "❌ regressed";
        case change_verdict::improved: return "✅ improved";
        case change_verdict::unchanged: return "unchanged";
        case change_verdict::inconclusive: return "❔ inconclusive";
    }
    return "";
}

MCP_LOADTEST_DECL std::string html_page_head(const std::string& title) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + comparison_html_escape(title) +
        "</title><style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
        "td:first-child,th:first-child{text-align:left}.regressed{background:#fdd}.improved{background:#dfd}"
        ".win{font-weight:bold;background:#eef}.verdict{padding:8px;border-left:4px solid #888;white-space:pre-wrap}"
        "</style></head><body>\n";
}

}  // namespace detail

MCP_LOADTEST_DECL std::string to_markdown(const comparison& c) {
    std::string s = std::string(c.passed() ? "### ✅ No regression" : "### ❌ Regression") + "\n\n";
    s += c.verdict_sentence() + "\n\n";
    s += "| metric | baseline | current | change (CI) | verdict |\n|---|---:|---:|---:|---|\n";
    for (const auto& m : c.metrics)
        s += "| " + detail::md_cell(m.name()) + " | " + detail::value_text(m.baseline, m.unit) + " | " +
             detail::value_text(m.current, m.unit) + " | " + detail::md_cell(detail::change_text(m)) + " | " +
             detail::verdict_mark(m.verdict) + " |\n";
    s += "\nRule: regressed = the " + detail::fixed(100 * c.rules.confidence, 0) +
         " % interval excludes no change on the bad side and the change is at least " +
         detail::fixed(100 * c.rules.min_effect, 0) + " % (docs/reports.md#comparing-reports).\n";
    return s;
}

MCP_LOADTEST_DECL std::string to_html(const comparison& c) {
    std::string s = detail::html_page_head("mcp-loadtest comparison");
    s += std::string("<h1>") + (c.passed() ? "No regression" : "Regression") + "</h1>\n<div class=\"verdict\">" +
         detail::comparison_html_escape(c.verdict_sentence()) + "</div>\n<table id=\"comparison\">\n"
         "<tr><th>metric</th><th>baseline</th><th>current</th><th>change (CI)</th><th>verdict</th></tr>\n";
    for (const auto& m : c.metrics)
        s += "<tr class=\"" + std::string(to_string(m.verdict)) + "\" title=\"" + detail::comparison_html_escape(m.sentence) +
             "\"><td>" + detail::comparison_html_escape(m.name()) + "</td><td>" + detail::value_text(m.baseline, m.unit) +
             "</td><td>" + detail::value_text(m.current, m.unit) + "</td><td>" +
             detail::comparison_html_escape(detail::change_text(m)) + "</td><td>" + std::string(to_string(m.verdict)) +
             "</td></tr>\n";
    s += "</table>\n</body></html>\n";
    return s;
}

MCP_LOADTEST_DECL std::string to_markdown(const server_comparison& c) {
    std::string s = "### Servers compared: ";
    for (std::size_t i = 0; i < c.names.size(); ++i) s += (i ? " vs " : "") + c.names[i];
    s += "\n\nSame workload, mix and seed for each, run one after another. Each server after the first is compared "
         "with the first (bootstrap over per-interval histograms; docs/reports.md#comparing-servers).\n\n| metric |";
    for (const auto& n : c.names) s += " " + detail::md_cell(n) + " |";
    s += " winner |\n|---|";
    for (std::size_t i = 0; i < c.names.size(); ++i) s += "---:|";
    s += "---|\n";
    for (const auto& r : c.rows) {
        s += "| " + detail::md_cell(r.scope + " " + r.metric) + " |";
        for (std::size_t i = 0; i < r.values.size(); ++i) {
            std::string v = detail::value_text(r.values[i], r.unit);
            if (i == r.winner && !r.tie) v = "**" + v + "**";
            if (i > 0) v += " (" + r.versus_first[i] + ")";
            s += " " + v + " |";
        }
        s += " " + (r.tie ? std::string("tie") : detail::md_cell(c.names[r.winner])) + " |\n";
    }
    for (std::size_t i = 0; i < c.against_first.size(); ++i)
        for (const auto& m : c.against_first[i].mismatches) s += "\nNote (" + c.names[i + 1] + "): " + m + ".";
    return s + "\n";
}

MCP_LOADTEST_DECL std::string to_html(const server_comparison& c) {
    std::string title = "mcp-loadtest: ";
    for (std::size_t i = 0; i < c.names.size(); ++i) title += (i ? " vs " : "") + c.names[i];
    std::string s = detail::html_page_head(title);
    s += "<h1>" + detail::comparison_html_escape(title) + "</h1>\n<table id=\"servers\">\n<tr><th>metric</th>";
    for (const auto& n : c.names) s += "<th>" + detail::comparison_html_escape(n) + "</th>";
    s += "<th>winner</th></tr>\n";
    for (const auto& r : c.rows) {
        s += "<tr data-scope=\"" + detail::comparison_html_escape(r.scope) + "\" data-metric=\"" + detail::comparison_html_escape(r.metric) +
             "\"><td>" + detail::comparison_html_escape(r.scope + " " + r.metric) + "</td>";
        for (std::size_t i = 0; i < r.values.size(); ++i) {
            s += std::string("<td") + (i == r.winner && !r.tie ? " class=\"win\"" : "") + ">" +
                 detail::value_text(r.values[i], r.unit);
            if (i > 0) s += "<br><small>" + detail::comparison_html_escape(r.versus_first[i]) + "</small>";
            s += "</td>";
        }
        s += "<td>" + (r.tie ? std::string("tie") : detail::comparison_html_escape(c.names[r.winner])) + "</td></tr>\n";
    }
    s += "</table>\n</body></html>\n";
    return s;
}


MCP_LOADTEST_DECL const server_metric_row* server_comparison::find(std::string_view scope, std::string_view metric) const noexcept {
    for (const auto& r : rows)
        if (r.scope == scope && r.metric == metric) return &r;
    return nullptr;
}

MCP_LOADTEST_DECL std::string server_comparison::winner(std::string_view scope, std::string_view metric) const {
    const auto* r = find(scope, metric);
    return r ? names[r->winner] : std::string();
}

}  // namespace mcp_loadtest
