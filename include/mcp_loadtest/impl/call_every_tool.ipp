// Definitions of call_every_tool.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/call_every_tool.hpp>

#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/detail/detectors/schema_arguments.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::vector<const tool_smoke_result*> tool_smoke_report::failed() const {
    std::vector<const tool_smoke_result*> out;
    for (const auto& t : tools)
        if (!t.result.ok()) out.push_back(&t);
    return out;
}

MCP_LOADTEST_DECL std::string tool_smoke_report::summary() const {
    if (!listing.ok()) return "tools/list failed: " + listing.describe();
    std::string s = std::to_string(tools.size() - failed().size()) + " of " + std::to_string(tools.size()) +
                    " tools answered ok when called once with arguments generated from their inputSchema";
    for (const auto* t : failed())
        s += "\n  - " + t->tool + " " + t->arguments.dump(-1, ' ', false, json::error_handler_t::replace) + ": " +
             t->result.describe();
    return s;
}

}  // namespace mcp_loadtest

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL asio::awaitable<tool_smoke_report> smoke_job::run() {
    tool_smoke_report report;
    auto tools = co_await s->list_tools(options);
    report.listing = tools.status;
    for (const auto& t : tools) {
        if (std::find(skip.begin(), skip.end(), t.name) != skip.end()) continue;
        tool_smoke_result one;
        one.tool = t.name;
        one.arguments = example_arguments(t.input_schema);
        const arguments args(one.arguments);  // named: no temporary inside co_await (GCC 12)
        one.result = co_await s->call_tool(one.tool, args, options);
        report.tools.push_back(std::move(one));
    }
    co_return report;
}

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest {

MCP_LOADTEST_DECL asio::awaitable<tool_smoke_report> call_every_tool(session& s, call_options options,
                                                                      std::vector<std::string> skip) {
    return detail::start_owned(detail::smoke_job{&s, options, std::move(skip)});
}

MCP_LOADTEST_DECL asio::awaitable<tool_smoke_report> call_every_tool(session& s, call_options options) {
    return call_every_tool(s, options, std::vector<std::string>{});
}

MCP_LOADTEST_DECL asio::awaitable<tool_smoke_report> call_every_tool(session& s) {
    return call_every_tool(s, call_options{.timeout = std::chrono::seconds(30)});
}

}  // namespace mcp_loadtest
