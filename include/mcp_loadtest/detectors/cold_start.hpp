// Cold start (docs/load-testing.md#cold-start): spawn → initialize → first
// call, `iterations` times through repeat(), a histogram of each phase.
#pragma once

#include <mcp_loadtest/combinators.hpp>
#include <mcp_loadtest/histogram.hpp>
#include <mcp_loadtest/session.hpp>

#include <chrono>
#include <string>
#include <type_traits>
#include <vector>

namespace mcp_loadtest {

struct cold_start_options {
    std::size_t iterations = 5;
    bool discard_first = true;  ///< the first start warms disk caches and interpreters
    call_options call{.timeout = std::chrono::seconds(30)};
};
// Written inline inside co_await: must stay trivially copyable (docs/index.md#compiler-notes).
static_assert(std::is_trivially_copyable_v<cold_start_options>);

struct cold_start_sample {
    std::chrono::nanoseconds spawn{0};       ///< process creation
    std::chrono::nanoseconds initialize{0};  ///< spawn done → initialize answered
    std::chrono::nanoseconds first_call{0};  ///< the first tools/call
    std::chrono::nanoseconds total{0};
    mcp_loadtest::outcome outcome = outcome::ok;  ///< of the first call (or of initialize when it failed)
    std::string message;
};

struct cold_start_report {
    std::string tool;
    std::vector<cold_start_sample> samples;  ///< every iteration, including a discarded first one
    std::size_t discarded = 0;
    std::size_t failures = 0;
    latency_histogram spawn, initialize, first_call, total;
    latency_summary spawn_summary, initialize_summary, first_call_summary, total_summary;
};

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

// The client options take an overload, not a default: a defaulted client_options{}
// would be a temporary inside the caller's co_await (docs/index.md#compiler-notes).
/// spawn → initialize → first call, `iterations` times: a histogram of each phase.
inline asio::awaitable<cold_start_report> cold_start(any_server server, std::string tool, const json& arguments,
                                                     cold_start_options options, client_options client) {
    return detail::start_owned(detail::cold_start_job{std::move(server), std::move(client), std::move(tool),
                                                      raw_json::from(arguments), options});
}
inline asio::awaitable<cold_start_report> cold_start(any_server server, std::string tool, const json& arguments,
                                                     cold_start_options options = {}) {
    return cold_start(std::move(server), std::move(tool), arguments, options, client_options{});
}

}  // namespace mcp_loadtest
