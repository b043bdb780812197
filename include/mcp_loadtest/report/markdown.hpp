// A load report (or a detector report) as Markdown that reads well as a CI step summary
// (GitHub's $GITHUB_STEP_SUMMARY) or a pull-request comment: the verdict and one sentence
// first, then the A–F grades, latency per tool and step, errors by outcome with samples, the
// servers' resources, and each missed objective with what it means (docs/reports.md).
//
//     std::ofstream(std::getenv("GITHUB_STEP_SUMMARY"), std::ios::app) << mlt::to_markdown(report);
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/text/html_escape.hpp>
#include <mcp_loadtest/detail/report/report_evidence.hpp>
#include <mcp_loadtest/load_report.hpp>
#include <mcp_loadtest/report/grade.hpp>

#include <concepts>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

/// A bug-class detector's report (docs/detectors.md): says whether it passed and why in one
/// sentence, and converts to JSON. load_report has its own forms.
template <class R>
concept detector_report = requires(const R& r) {
    { r.passed() } -> std::convertible_to<bool>;
    { r.verdict_sentence() } -> std::convertible_to<std::string>;
    { json(r) };
} && !std::same_as<R, load_report>;

namespace detail {

/// One sentence for the top of a report: what the run did and whether it met its objectives.
[[nodiscard]] MCP_LOADTEST_DECL std::string verdict_sentence_of(const load_report& r);

[[nodiscard]] MCP_LOADTEST_DECL std::string md_row(const std::vector<std::string>& cells);

/// The header row and its rule: the first `text_columns` columns align left, the rest (numbers) right.
[[nodiscard]] MCP_LOADTEST_DECL std::string md_header(const std::vector<std::string>& cells, std::size_t text_columns = 1);

[[nodiscard]] MCP_LOADTEST_DECL std::vector<std::string> latency_cells(const std::string& scope, const call_stats& s);

[[nodiscard]] MCP_LOADTEST_DECL std::string process_label(const server_process_report& p);

/// A report.per_tool key as a table's scope: "tool echo", or a request as it is keyed
/// ("resources/read fixture://r/1", "ping") when its first word is a method of the report.
[[nodiscard]] MCP_LOADTEST_DECL std::string scope_label(const load_report& r, const std::string& key);

/// One row of the progress table: asked, got some, notifications, time to the first (p50, p99), broken in flight.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<std::string> progress_cells(const std::string& scope, const progress_stats& p);

/// "start → end" of one resource over a process's samples, "–" without samples.
template <class Get>
[[nodiscard]] std::string start_to_end(const server_process_report& p, Get get) {
    if (p.samples.empty()) return "–";
    return format_plain(get(p.samples.front())) + " → " + format_plain(get(p.samples.back()));
}

/// What each finding means, one sentence each (the grades' meanings come first).
[[nodiscard]] MCP_LOADTEST_DECL std::vector<std::string> findings_of(const load_report& r, const report_grades& g);

}  // namespace detail

/// The report as Markdown: the verdict and one sentence first, then grades, latency, errors,
/// resources, violations and what each finding means. Every text that came from the server or
/// the scenario (names, messages, samples) is escaped: it cannot break a table or inject HTML.
[[nodiscard]] MCP_LOADTEST_DECL std::string to_markdown(const load_report& r);

/// A detector report as Markdown: verdict and its sentence first, then the evidence of its JSON
/// (figures, then each list as a table). `title` names it ("cross-talk check of lookup_user").
template <detector_report R>
[[nodiscard]] std::string to_markdown(const R& r, std::string_view title) {
    using detail::markdown_cell;
    const json j = r;
    std::string s = std::string("## ") + (r.passed() ? "✅ PASSED" : "❌ FAILED") + ": " +
                    markdown_cell(title, 160) + "\n\n" + markdown_cell(std::string(r.verdict_sentence()), 3000) + "\n\n";
    for (const auto& t : detail::evidence_tables(j)) {
        s += "### " + (t.title.empty() ? std::string("Figures") : markdown_cell(t.title, 80)) + "\n\n";
        if (t.list) {
            for (const auto& row : t.rows) s += "- " + markdown_cell(row.front(), 400) + "\n";
        } else {
            std::vector<std::string> header;
            for (const auto& c : t.columns) header.push_back(markdown_cell(c, 60));
            s += detail::md_header(header, header.size());
            for (const auto& row : t.rows) {
                std::vector<std::string> cells;
                for (const auto& c : row) cells.push_back(markdown_cell(c, 300));
                s += detail::md_row(cells);
            }
        }
        if (t.rows_left_out) s += "\n…and " + std::to_string(t.rows_left_out) + " more (see the JSON report).\n";
        s += "\n";
    }
    return s;
}

template <detector_report R>
[[nodiscard]] std::string to_markdown(const R& r) {
    return to_markdown(r, "detector report");
}

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/report/impl/markdown.ipp>
#endif
