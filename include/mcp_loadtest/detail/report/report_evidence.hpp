// A detector report's JSON laid out as tables people can read: its scalar members as one
// "figures" table, each array of objects as a table (one column per member), each array of
// scalars as a list, each nested object as a figures table of its own. The Markdown and HTML
// forms of detector reports (report/markdown.hpp, report/html.hpp) both render this layout.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace mcp_loadtest::detail {

struct evidence_table {
    std::string title;                          ///< the member's name ("" for the top-level figures)
    std::vector<std::string> columns;           ///< {"name", "value"} for figures
    std::vector<std::vector<std::string>> rows;
    std::size_t rows_left_out = 0;              ///< arrays are cut at max_rows: this many more
    bool list = false;                          ///< an array of scalars: one value per row
};

/// A scalar as text: strings as they are, numbers as JSON writes them, null as "–".
[[nodiscard]] MCP_LOADTEST_DECL std::string evidence_text(const json& v, std::size_t max_chars = 400);

[[nodiscard]] MCP_LOADTEST_DECL std::vector<evidence_table> evidence_tables(const json& report, std::size_t max_rows = 50);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/report/impl/report_evidence.ipp>
#endif
