// Cross-server comparison (docs/reports.md#comparing-servers): the same load, mix and seed
// against N server descriptions one after another ("fork" vs "upstream", Python vs Node), and
// one side-by-side result with per-metric winners and each server's regression statistics
// against the first. Also the Markdown and HTML forms of a baseline comparison.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/report/compare.hpp>
#include <mcp_loadtest/run.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest {

/// A server description with the name the side-by-side report shows.
struct named_server {
    std::string name;
    any_server server;
};

/// One metric across the servers.
struct server_metric_row {
    std::string scope;   ///< "overall" or "tool <name>"
    std::string metric;  ///< p50, p95, p99, p99.9, throughput, error_rate
    std::string unit;
    bool higher_is_better = false;
    std::vector<double> values;        ///< one per server, in the order given
    std::size_t winner = 0;            ///< the index of the best value (the first of equals)
    bool tie = false;                  ///< every server has the same value
    /// Per server: "baseline" for the first; else its verdict against the first, as
    /// "significantly better", "significantly worse", "indistinguishable" or "inconclusive".
    std::vector<std::string> versus_first;
};

struct server_comparison {
    std::vector<std::string> names;
    std::vector<load_report> reports;
    std::vector<comparison> against_first;  ///< [i - 1]: server i compared with server 0
    std::vector<server_metric_row> rows;

    [[nodiscard]] MCP_LOADTEST_DECL const server_metric_row* find(std::string_view scope, std::string_view metric) const noexcept;
    /// The name of the winner on one metric ("" when the metric is absent).
    [[nodiscard]] MCP_LOADTEST_DECL std::string winner(std::string_view scope, std::string_view metric) const;
};

namespace detail {

MCP_LOADTEST_DECL std::string versus_text(change_verdict v);

}  // namespace detail

/// Builds the side-by-side result from reports already measured (same workload each).
[[nodiscard]] MCP_LOADTEST_DECL server_comparison side_by_side(std::vector<std::string> names, std::vector<load_report> reports,
                                                               const comparison_rules& rules);

/// Runs `load` with `body` against each server in turn (same workload, mix, seed and options)
/// and compares them side by side.
MCP_LOADTEST_DECL asio::awaitable<server_comparison> compare_servers(std::vector<named_server> servers, workload load,
                                                                     iteration_body body, thresholds objectives,
                                                                     run_options options, comparison_rules rules);
MCP_LOADTEST_DECL asio::awaitable<server_comparison> compare_servers(std::vector<named_server> servers, workload load,
                                                                     iteration_body body, run_options options);

MCP_LOADTEST_DECL void to_json(json& j, const server_metric_row& r);
MCP_LOADTEST_DECL void to_json(json& j, const server_comparison& c);

// ---- Markdown and HTML ----------------------------------------------------------------

namespace detail {

MCP_LOADTEST_DECL std::string comparison_html_escape(std::string_view s);
MCP_LOADTEST_DECL std::string md_cell(std::string_view s);
MCP_LOADTEST_DECL std::string value_text(double v, const std::string& unit);
MCP_LOADTEST_DECL std::string change_text(const metric_comparison& m);
MCP_LOADTEST_DECL const char* verdict_mark(change_verdict v);
MCP_LOADTEST_DECL std::string html_page_head(const std::string& title);

}  // namespace detail

/// A baseline comparison as Markdown: the verdict first, then one table row per metric.
[[nodiscard]] MCP_LOADTEST_DECL std::string to_markdown(const comparison& c);

/// A baseline comparison as one self-contained HTML page.
[[nodiscard]] MCP_LOADTEST_DECL std::string to_html(const comparison& c);

/// The side-by-side comparison as Markdown: one column per server, the winner in bold, and each
/// server's verdict against the first.
[[nodiscard]] MCP_LOADTEST_DECL std::string to_markdown(const server_comparison& c);

/// The side-by-side comparison as one self-contained HTML page.
[[nodiscard]] MCP_LOADTEST_DECL std::string to_html(const server_comparison& c);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/report/impl/compare_servers.ipp>
#endif
