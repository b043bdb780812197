// Escaping text for the report forms: every server name, tool name and error sample is hostile
// input (a server chooses them), so each reaches HTML or Markdown only through these.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

/// Text for HTML element content and double- or single-quoted attribute values.
[[nodiscard]] MCP_LOADTEST_DECL std::string html_escape(std::string_view text);

/// Text for one Markdown table cell (or an inline list item): no '|' ends the cell, no newline
/// ends the row, no HTML a renderer would run, no backtick, emphasis or link syntax that
/// changes how the rest reads. Control characters become spaces.
[[nodiscard]] MCP_LOADTEST_DECL std::string markdown_cell(std::string_view text, std::size_t max_chars = 300);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/text/impl/html_escape.ipp>
#endif
