// A load report (or a detector report) as ONE self-contained HTML page: no network, no CDN,
// no web font, no script; the charts are inline SVG drawn here (detail/report/svg_chart.hpp):
// latency by percentile (log scale to p99.99), latency and throughput over time, and each
// server process's RSS, descriptors and threads over time. Every number a chart shows is also
// in the page as text (a table under the chart), and every text from the server is escaped.
//
//     std::ofstream("report.html") << mlt::to_html(report);
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/text/html_escape.hpp>
#include <mcp_loadtest/detail/report/report_evidence.hpp>
#include <mcp_loadtest/detail/report/svg_chart.hpp>
#include <mcp_loadtest/load_report.hpp>
#include <mcp_loadtest/report/grade.hpp>
#include <mcp_loadtest/report/markdown.hpp>  // detector_report, verdict_sentence_of, findings_of

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

namespace detail {

inline constexpr const char* chart_colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                "#9467bd", "#8c564b", "#e377c2", "#17becf"};

inline constexpr std::string_view html_style = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1b1f23;margin:24px;max-width:1140px}
h1{font-size:22px;margin:0 0 6px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #e1e4e8;padding-bottom:4px}
.verdict{padding:12px 16px;border-radius:6px;margin-bottom:14px}.pass{background:#e6f4ea;border:1px solid #34a853}
.fail{background:#fce8e6;border:1px solid #d93025}.meta{color:#57606a;font-size:13px}
table{border-collapse:collapse;margin:6px 0 12px}th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:right;vertical-align:top}
th{background:#f6f8fa;text-align:left}figure{margin:0}td:first-child,th:first-child{text-align:left}td.text{text-align:left;max-width:520px;overflow-wrap:anywhere}
.grade{font-weight:700;font-size:16px;text-align:center}.gA{color:#1a7f37}.gB{color:#4d8b00}.gC{color:#9a6700}
.gD{color:#bc4c00}.gF{color:#cf222e}.charts{display:flex;flex-wrap:wrap;gap:12px}.chart{background:#fff}
details{margin:2px 0 10px}summary{cursor:pointer;color:#57606a;font-size:12px}ul{padding-left:20px}
)";

[[nodiscard]] MCP_LOADTEST_DECL std::string td(const std::string& text, const char* cls = nullptr);

[[nodiscard]] MCP_LOADTEST_DECL std::string html_table(const std::vector<std::string>& header,
                                                       const std::vector<std::vector<std::string>>& rows,
                                                       const char* id = nullptr);

/// A chart with its numbers under it, as a collapsed table (the DOM carries every value).
[[nodiscard]] MCP_LOADTEST_DECL std::string chart_with_data(const line_chart& c, const std::string& x_name, std::size_t max_rows = 400);

/// x = log10(1 / (1 − p)): 0 is the median's left edge (p0), 1 is p90, 2 p99, 3 p99.9, 4 p99.99.
[[nodiscard]] MCP_LOADTEST_DECL line_chart percentile_chart(const latency_histogram& h, std::string title);

[[nodiscard]] MCP_LOADTEST_DECL double timeline_bucket_s(const load_report& r);

}  // namespace detail

/// The report as one self-contained HTML page (see the top of this header).
[[nodiscard]] MCP_LOADTEST_DECL std::string to_html(const load_report& r);

/// A detector report as one self-contained HTML page: verdict and its sentence first, then the
/// evidence of its JSON as tables. `title` names it ("cross-talk check of lookup_user").
template <detector_report R>
[[nodiscard]] std::string to_html(const R& r, std::string_view title) {
    using detail::html_escape;
    const json j = r;
    const bool ok = r.passed();
    std::string s = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
                    "<title>" + std::string(ok ? "PASSED" : "FAILED") + " · " + html_escape(title) +
                    "</title><style>" + std::string(detail::html_style) + "</style></head><body>\n";
    s += "<div class=\"verdict " + std::string(ok ? "pass" : "fail") + "\"><h1 id=\"verdict\">" +
         (ok ? "PASSED" : "FAILED") + ": " + html_escape(title) + "</h1><div id=\"verdict-sentence\">" +
         html_escape(std::string(r.verdict_sentence())) + "</div></div>\n";
    for (const auto& t : detail::evidence_tables(j)) {
        s += "<h2>" + (t.title.empty() ? std::string("Figures") : html_escape(t.title)) + "</h2>";
        if (t.list) {
            s += "<ul>";
            for (const auto& row : t.rows) s += "<li><code>" + html_escape(row.front()) + "</code></li>";
            s += "</ul>\n";
        } else {
            s += detail::html_table(t.columns, t.rows);
        }
        if (t.rows_left_out)
            s += "<p class=\"meta\">…and " + std::to_string(t.rows_left_out) + " more (see the JSON report).</p>\n";
    }
    return s + "</body></html>\n";
}

template <detector_report R>
[[nodiscard]] std::string to_html(const R& r) {
    return to_html(r, "detector report");
}

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/report/impl/html.ipp>
#endif
