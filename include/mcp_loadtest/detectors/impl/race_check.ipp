// Definitions of detectors/race_check.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detectors/race_check.hpp>

#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/json.hpp>

#include <algorithm>
#include <exception>
#include <map>
#include <string>
#include <vector>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::string race_report::explanation() const {
    if (!divergent()) return std::to_string(calls) + " identical calls to '" + tool + "' all returned the same response.";
    std::string s = std::to_string(calls) + " identical concurrent calls to '" + tool + "' returned " +
                    std::to_string(groups.size()) +
                    " different responses: shared state is probably not synchronised (a race), or the "
                    "response contains volatile fields (add them to race_options.ignore_paths).";
    for (std::size_t i = 0; i < groups.size() && i < 5; ++i)
        s += "\n  " + std::to_string(groups[i].count) + "x: " + groups[i].sample;
    return s;
}

MCP_LOADTEST_DECL void to_json(json& j, const response_group& g) {
    j = json{{"canonical", g.canonical}, {"count", g.count}, {"request_ids", g.request_ids}, {"sample", g.sample}};
}

MCP_LOADTEST_DECL void from_json(const json& j, response_group& g) {
    g.canonical = j.at("canonical").get<std::string>();
    g.count = j.at("count").get<std::size_t>();
    g.request_ids = j.at("request_ids").get<std::vector<std::uint64_t>>();
    g.sample = j.at("sample").get<std::string>();
}

MCP_LOADTEST_DECL void to_json(json& j, const race_report& r) {
    j = json{{"tool", r.tool}, {"calls", r.calls}, {"divergent", r.divergent()}, {"groups", r.groups}};
}

MCP_LOADTEST_DECL void from_json(const json& j, race_report& r) {
    r.tool = j.at("tool").get<std::string>();
    r.calls = j.at("calls").get<std::size_t>();
    r.groups = j.at("groups").get<std::vector<response_group>>();
}

namespace detail {

MCP_LOADTEST_DECL std::string canonical_response(const call_result& c, const std::vector<std::string>& ignore) {
    if (c.outcome != outcome::ok && c.outcome != outcome::tool_error)
        return "error " + std::string(to_string(c.outcome)) + " " + std::to_string(c.error_code);
    json v;
    try {
        v = c.result();
    } catch (const std::exception&) {
        return "unparseable " + std::string(c.payload_text());
    }
    for (const auto& p : ignore) {
        try {
            const json::json_pointer ptr(p);
            if (v.contains(ptr)) v[ptr.parent_pointer()].erase(ptr.back());
        } catch (const std::exception&) {
        }
    }
    return (c.outcome == outcome::tool_error ? "tool_error " : "") + v.dump();  // objects dump key-sorted
}

/// Groups results by canonical response, largest group first.
MCP_LOADTEST_DECL std::vector<response_group> group_responses(const std::vector<call_result>& results,
                                                   const std::vector<std::string>& ignore) {
    std::map<std::string, response_group> groups;
    for (const auto& c : results) {
        const std::string key = canonical_response(c, ignore);
        auto& g = groups[key];
        if (g.count++ == 0) {
            g.canonical = key;
            g.sample = c.answered() ? std::string(c.payload_text().substr(0, 500)) : c.describe();
        }
        if (g.request_ids.size() < 20) g.request_ids.push_back(c.request_id);
    }
    std::vector<response_group> out;
    for (auto& [k, g] : groups) out.push_back(std::move(g));
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.count > b.count; });
    return out;
}

struct race_job {
    any_server server;
    client_options client;
    std::string tool;
    raw_json args;
    race_options o;
    std::vector<std::string> ignore;

    asio::awaitable<race_report> run() {
        auto sessions = co_await open_sessions(server, std::max<std::size_t>(1, o.sessions), client);
        const auto results = co_await concurrently(sessions, o.concurrent, [this](session& s, std::size_t) {
            return s.call_tool(tool, args, o.call);
        });
        co_await close_sessions(sessions);
        race_report r;
        r.tool = tool;
        r.calls = results.size();
        r.groups = group_responses(results, ignore);
        co_return r;
    }
};
}  // namespace detail

MCP_LOADTEST_DECL asio::awaitable<race_report> race_check(any_server server, std::string tool, const json& arguments,
                                               race_options options, client_options client) {
    std::vector<std::string> ignore(options.ignore_paths.begin(), options.ignore_paths.end());
    return detail::start_owned(detail::race_job{std::move(server), std::move(client), std::move(tool),
                                                raw_json::from(arguments), options, std::move(ignore)});
}

MCP_LOADTEST_DECL asio::awaitable<race_report> race_check(any_server server, std::string tool, const json& arguments,
                                               race_options options) {
    return race_check(std::move(server), std::move(tool), arguments, options, client_options{});
}

}  // namespace mcp_loadtest
