// A smoke pass: every tool the server lists, called once with arguments
// generated from its inputSchema (docs/protocol-correctness.md#coverage).
// Tools that fail on every call are found before a load test depends on them.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/session.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace mcp_loadtest {

struct tool_smoke_result {
    std::string tool;
    json arguments = json::object();  ///< what was sent, generated from the tool's inputSchema
    call_result result;
};

struct tool_smoke_report {
    call_result listing;  ///< the tools/list call (its last page)
    std::vector<tool_smoke_result> tools;

    /// Tools whose call did not end ok (tool errors included).
    [[nodiscard]] MCP_LOADTEST_DECL std::vector<const tool_smoke_result*> failed() const;
    [[nodiscard]] bool passed() const { return listing.ok() && failed().empty(); }
    [[nodiscard]] MCP_LOADTEST_DECL std::string summary() const;
};

namespace detail {
struct smoke_job {
    session* s;
    call_options options;
    std::vector<std::string> skip;

    MCP_LOADTEST_DECL asio::awaitable<tool_smoke_report> run();
};
}  // namespace detail

/// Calls every listed tool once, in listing order, one at a time, except
/// those named in `skip` (tools with side effects a smoke pass must not trigger).
MCP_LOADTEST_DECL asio::awaitable<tool_smoke_report> call_every_tool(session& s, call_options options,
                                                                     std::vector<std::string> skip);
MCP_LOADTEST_DECL asio::awaitable<tool_smoke_report> call_every_tool(session& s, call_options options);
MCP_LOADTEST_DECL asio::awaitable<tool_smoke_report> call_every_tool(session& s);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/call_every_tool.ipp>
#endif
