// Definitions of detectors/cold_start.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detectors/cold_start.hpp>

#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/json.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace mcp_loadtest {

namespace detail {
struct cold_start_job {
    any_server server;
    client_options client;
    std::string tool;
    raw_json args;
    cold_start_options o;

    asio::awaitable<cold_start_report> run() {
        cold_start_report r;
        r.tool = tool;
        r.samples = co_await repeat(o.iterations + (o.discard_first ? 1 : 0), [this](std::size_t) { return start_once(); });
        for (std::size_t i = 0; i < r.samples.size(); ++i) {
            const auto& s = r.samples[i];
            const bool discard = o.discard_first && i == 0;
            if (discard) ++r.discarded;
            if (s.outcome != outcome::ok) ++r.failures;
            if (discard || s.outcome != outcome::ok) continue;
            r.spawn.record(s.spawn);
            r.initialize.record(s.initialize);
            r.first_call.record(s.first_call);
            r.total.record(s.total);
        }
        r.spawn_summary = r.spawn.summary();
        r.initialize_summary = r.initialize.summary();
        r.first_call_summary = r.first_call.summary();
        r.total_summary = r.total.summary();
        co_return r;
    }

    asio::awaitable<cold_start_sample> start_once() {
        using clock = std::chrono::steady_clock;
        cold_start_sample s;
        const auto t0 = clock::now();
        session sess = co_await spawn(server, client);
        const auto t1 = clock::now();
        s.spawn = t1 - t0;
        bool initialized = true;
        try {
            co_await sess.initialize();
        } catch (const connect_error& e) {
            initialized = false;
            s.outcome = e.result.outcome;
            s.message = e.what();
        }
        s.initialize = clock::now() - t1;
        if (initialized) {
            const auto c = co_await sess.call_tool(tool, args, o.call);
            s.first_call = c.duration;
            s.outcome = c.outcome;
            if (!c.ok()) s.message = c.message;
        }
        s.total = clock::now() - t0;
        co_await sess.close();
        co_return s;
    }
};
}  // namespace detail

MCP_LOADTEST_DECL asio::awaitable<cold_start_report> cold_start(any_server server, std::string tool, const json& arguments,
                                                     cold_start_options options, client_options client) {
    return detail::start_owned(detail::cold_start_job{std::move(server), std::move(client), std::move(tool),
                                                      raw_json::from(arguments), options});
}

MCP_LOADTEST_DECL asio::awaitable<cold_start_report> cold_start(any_server server, std::string tool, const json& arguments,
                                                     cold_start_options options) {
    return cold_start(std::move(server), std::move(tool), arguments, options, client_options{});
}

}  // namespace mcp_loadtest
