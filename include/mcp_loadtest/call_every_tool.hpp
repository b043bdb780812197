// A smoke pass: every tool the server lists, called once with arguments
// generated from its inputSchema (docs/protocol-correctness.md#coverage).
// Tools that fail on every call are found before a load test depends on them.
#pragma once

#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/detail/schema_arguments.hpp>
#include <mcp_loadtest/session.hpp>

#include <algorithm>
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
    [[nodiscard]] std::vector<const tool_smoke_result*> failed() const {
        std::vector<const tool_smoke_result*> out;
        for (const auto& t : tools)
            if (!t.result.ok()) out.push_back(&t);
        return out;
    }
    [[nodiscard]] bool passed() const { return listing.ok() && failed().empty(); }
    [[nodiscard]] std::string summary() const {
        if (!listing.ok()) return "tools/list failed: " + listing.describe();
        std::string s = std::to_string(tools.size() - failed().size()) + " of " + std::to_string(tools.size()) +
                        " tools answered ok when called once with arguments generated from their inputSchema";
        for (const auto* t : failed())
            s += "\n  - " + t->tool + " " + t->arguments.dump(-1, ' ', false, json::error_handler_t::replace) + ": " +
                 t->result.describe();
        return s;
    }
};

namespace detail {
struct smoke_job {
    session* s;
    call_options options;
    std::vector<std::string> skip;

    asio::awaitable<tool_smoke_report> run() {
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
};
}  // namespace detail

/// Calls every listed tool once, in listing order, one at a time, except
/// those named in `skip` (tools with side effects a smoke pass must not trigger).
inline asio::awaitable<tool_smoke_report> call_every_tool(session& s, call_options options,
                                                          std::vector<std::string> skip) {
    return detail::start_owned(detail::smoke_job{&s, options, std::move(skip)});
}
inline asio::awaitable<tool_smoke_report> call_every_tool(session& s, call_options options) {
    return call_every_tool(s, options, std::vector<std::string>{});
}
inline asio::awaitable<tool_smoke_report> call_every_tool(session& s) {
    return call_every_tool(s, call_options{.timeout = std::chrono::seconds(30)});
}

}  // namespace mcp_loadtest
