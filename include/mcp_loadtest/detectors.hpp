// Bug-class detectors (design document §15): the deadlock probe, cold-start
// timing and the race check. Each returns a plain report struct.
#pragma once

#include <mcp_loadtest/histogram.hpp>
#include <mcp_loadtest/session.hpp>
#include <mcp_loadtest/when_all.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mcp_loadtest {

// ---- deadlock probe (§15.2) ---------------------------------------------------

struct probe_options {
    std::size_t concurrent = 20;  ///< tools/call fired at once, per session
    std::chrono::milliseconds hang_threshold{5000};
    /// Extra wait after the threshold before a call counts as deadlocked
    /// (0: half the threshold, so a deadlock is reported within 1.5× it).
    std::chrono::milliseconds grace{0};
    std::chrono::milliseconds tools_list_timeout{1000};
    std::size_t sessions = 1;  ///< server processes probed at once
    std::size_t rounds = 1;    ///< repeat the burst; stops after the first round with a deadlock
};

enum class probe_verdict : std::uint8_t { pass, warning, critical };

[[nodiscard]] constexpr std::string_view to_string(probe_verdict v) noexcept {
    switch (v) {
        case probe_verdict::pass: return "pass";
        case probe_verdict::warning: return "warning";
        case probe_verdict::critical: return "critical";
    }
    return "unknown";
}

struct probe_call {
    std::size_t session = 0;
    std::size_t round = 0;
    std::uint64_t request_id = 0;
    mcp_loadtest::outcome outcome = outcome::ok;
    std::chrono::nanoseconds duration{0};
    std::string message;
};

struct deadlock_report {
    probe_verdict verdict = probe_verdict::pass;
    std::string tool;
    std::string method = "tools/call";
    std::string failed_stage;  ///< "initialize" or "tools/list" when the probe could not get to the calls
    std::string explanation;   ///< what happened and what it means
    std::vector<probe_call> calls;
    std::size_t ok = 0, slow = 0, deadlocked = 0, failed = 0;
    std::vector<std::uint64_t> deadlocked_ids;
    std::size_t rounds_run = 0;
    std::chrono::nanoseconds took{0};

    [[nodiscard]] bool passed() const noexcept { return verdict == probe_verdict::pass; }
    [[nodiscard]] bool has_deadlock() const noexcept { return deadlocked > 0 || !failed_stage.empty(); }
};

namespace detail {

inline std::string join_ids(const std::vector<std::uint64_t>& ids, std::size_t max = 20) {
    std::string s;
    for (std::size_t i = 0; i < ids.size() && i < max; ++i) s += (i ? ", " : "") + std::to_string(ids[i]);
    if (ids.size() > max) s += ", ... (" + std::to_string(ids.size()) + " in all)";
    return s;
}

struct probe_job {
    any_server server;
    client_options client;
    std::string tool;
    raw_json args;
    probe_options options;
};

// Coroutines here take one shared_ptr: GCC 12 mis-copies some by-value
// class-type coroutine parameters into the frame (seen as double frees).
inline asio::awaitable<deadlock_report> probe_deadlock(std::shared_ptr<probe_job> job) {
    using clock = std::chrono::steady_clock;
    const any_server& server = job->server;
    const std::string& tool = job->tool;
    const raw_json& args = job->args;
    probe_options& o = job->options;
    const auto t0 = clock::now();
    deadlock_report r;
    r.tool = tool;
    if (o.grace.count() == 0) o.grace = o.hang_threshold / 2;
    if (o.concurrent == 0 || o.sessions == 0 || o.rounds == 0)
        throw std::invalid_argument("deadlock_probe: concurrent, sessions and rounds must be at least 1");

    std::vector<session> sessions;
    for (std::size_t i = 0; i < o.sessions; ++i) {
        try {
            sessions.push_back(co_await connect(server, job->client));
        } catch (const connect_error& e) {
            r.verdict = probe_verdict::critical;
            r.failed_stage = "initialize";
            r.explanation = std::string("the server never completed initialize, so no tool could be probed: ") + e.what();
            r.took = clock::now() - t0;
            co_return r;
        }
        call_options list_options;
        list_options.timeout = o.tools_list_timeout;
        auto tools = co_await sessions.back().list_tools(list_options);
        if (!tools.ok()) {
            r.verdict = probe_verdict::critical;
            r.failed_stage = "tools/list";
            r.explanation = "tools/list did not succeed within " + std::to_string(o.tools_list_timeout.count()) +
                            " ms (" + tools.status.describe() +
                            "): the server is stuck before any tool is called (initialisation blocking its "
                            "event loop?).";
            for (auto& s : sessions) co_await s.close();
            r.took = clock::now() - t0;
            co_return r;
        }
        if (!tools.find(tool)) {
            std::string names;
            for (const auto& t : tools) names += (names.empty() ? "" : ", ") + t.name;
            throw std::invalid_argument("deadlock_probe: the server has no tool named '" + tool +
                                        "' (tools/list returned: " + names + ")");
        }
    }

    call_options call;
    call.timeout = o.hang_threshold;
    call.grace = o.grace;
    for (std::size_t round = 0; round < o.rounds; ++round) {
        // The barrier: every call is created, then all are started in the same
        // turn of the event loop, so they reach the server together.
        std::vector<asio::awaitable<call_result>> burst;
        std::vector<std::size_t> owner;
        for (std::size_t s = 0; s < sessions.size(); ++s)
            for (std::size_t i = 0; i < o.concurrent; ++i) {
                burst.push_back(sessions[s].call_tool(tool, args, call));
                owner.push_back(s);
            }
        auto results = co_await when_all(std::move(burst));
        ++r.rounds_run;
        for (std::size_t i = 0; i < results.size(); ++i) {
            const auto& c = results[i];
            r.calls.push_back({owner[i], round, c.request_id, c.outcome, c.duration, c.message});
            switch (c.outcome) {
                case outcome::ok:
                case outcome::tool_error: ++r.ok; break;
                case outcome::hang: ++r.slow; break;
                case outcome::deadlock:
                    ++r.deadlocked;
                    r.deadlocked_ids.push_back(c.request_id);
                    break;
                default: ++r.failed; break;
            }
        }
        if (r.deadlocked > 0) break;  // do not flood a wedged server
    }
    for (auto& s : sessions) co_await s.close();

    const std::size_t n = r.calls.size();
    if (r.deadlocked > 0) {
        r.verdict = probe_verdict::critical;
        r.explanation = "DEADLOCK: " + std::to_string(r.deadlocked) + " of " + std::to_string(n) + " concurrent " +
                        r.method + " calls to '" + tool + "' never answered within " +
                        std::to_string(o.hang_threshold.count() + o.grace.count()) + " ms (request ids " +
                        join_ids(r.deadlocked_ids) +
                        "). initialize and tools/list worked, so the tool path itself blocks: look for lazy "
                        "initialisation, a lock or a blocking import on the first call.";
    } else if (r.failed > 0) {
        r.verdict = probe_verdict::critical;
        r.explanation = std::to_string(r.failed) + " of " + std::to_string(n) +
                        " concurrent calls failed (crash, malformed reply or error): see calls[].message.";
    } else if (r.slow * 2 > n) {
        r.verdict = probe_verdict::warning;
        r.explanation = std::to_string(r.slow) + " of " + std::to_string(n) + " concurrent calls took longer than " +
                        std::to_string(o.hang_threshold.count()) + " ms but did answer: concurrency degrades latency.";
    } else {
        r.verdict = probe_verdict::pass;
        r.explanation = "all " + std::to_string(n) + " concurrent calls to '" + tool + "' answered" +
                        (r.slow ? " (" + std::to_string(r.slow) + " slowly)" : std::string()) + ".";
    }
    r.took = clock::now() - t0;
    co_return r;
}

}  // namespace detail

/// initialize → tools/list (short timeout) → `concurrent` tools/call released
/// at once, each with a hang detector; critical if any never answers.
///
/// The option structs of the detectors hold no strings on purpose: GCC 12
/// miscompiles a braced temporary with string members inside a co_await
/// expression, and these are the structs people write inline. Client options
/// (roots, handlers, versions) go in the overload that takes them.
inline asio::awaitable<deadlock_report> deadlock_probe(any_server server, std::string tool, const json& arguments,
                                                       probe_options options, client_options client) {
    return detail::probe_deadlock(std::make_shared<detail::probe_job>(detail::probe_job{
        std::move(server), std::move(client), std::move(tool), raw_json::from(arguments), options}));
}
inline asio::awaitable<deadlock_report> deadlock_probe(any_server server, std::string tool, const json& arguments,
                                                       probe_options options) {
    return deadlock_probe(std::move(server), std::move(tool), arguments, options, client_options{});
}
inline asio::awaitable<deadlock_report> deadlock_probe(any_server server, std::string tool, const json& arguments) {
    return deadlock_probe(std::move(server), std::move(tool), arguments, probe_options{}, client_options{});
}

// ---- cold start -----------------------------------------------------------------

struct cold_start_options {
    std::size_t iterations = 5;
    bool discard_first = true;  ///< the first start warms disk caches and interpreters
    call_options call{.timeout = std::chrono::seconds(30)};
};

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
    cold_start_options options;
};

inline asio::awaitable<cold_start_report> measure_cold_start(std::shared_ptr<cold_start_job> job) {
    using clock = std::chrono::steady_clock;
    const any_server& server = job->server;
    const std::string& tool = job->tool;
    const raw_json& args = job->args;
    const cold_start_options& o = job->options;
    cold_start_report r;
    r.tool = tool;
    for (std::size_t i = 0; i < o.iterations + (o.discard_first ? 1 : 0); ++i) {
        cold_start_sample s;
        const auto t0 = clock::now();
        session sess = co_await spawn(server, job->client);
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
        const auto t2 = clock::now();
        s.initialize = t2 - t1;
        if (initialized) {
            const auto c = co_await sess.call_tool(tool, args, o.call);
            s.first_call = c.duration;
            s.outcome = c.outcome;
            if (!c.ok()) s.message = c.message;
        }
        s.total = clock::now() - t0;
        co_await sess.close();
        const bool discard = o.discard_first && i == 0;
        if (discard) ++r.discarded;
        if (s.outcome != outcome::ok) ++r.failures;
        if (!discard && s.outcome == outcome::ok) {
            r.spawn.record(s.spawn);
            r.initialize.record(s.initialize);
            r.first_call.record(s.first_call);
            r.total.record(s.total);
        }
        r.samples.push_back(std::move(s));
    }
    r.spawn_summary = r.spawn.summary();
    r.initialize_summary = r.initialize.summary();
    r.first_call_summary = r.first_call.summary();
    r.total_summary = r.total.summary();
    co_return r;
}
}  // namespace detail

/// spawn → initialize → first call, `iterations` times: a histogram of each phase.
inline asio::awaitable<cold_start_report> cold_start(any_server server, std::string tool, const json& arguments,
                                                     cold_start_options options, client_options client) {
    return detail::measure_cold_start(std::make_shared<detail::cold_start_job>(detail::cold_start_job{
        std::move(server), std::move(client), std::move(tool), raw_json::from(arguments), options}));
}
inline asio::awaitable<cold_start_report> cold_start(any_server server, std::string tool, const json& arguments,
                                                     cold_start_options options) {
    return cold_start(std::move(server), std::move(tool), arguments, options, client_options{});
}
inline asio::awaitable<cold_start_report> cold_start(any_server server, std::string tool, const json& arguments) {
    return cold_start(std::move(server), std::move(tool), arguments, cold_start_options{}, client_options{});
}

// ---- race check -----------------------------------------------------------------

struct race_options {
    std::size_t concurrent = 20;
    std::size_t sessions = 1;  ///< spread the identical calls over this many server processes
    call_options call{.timeout = std::chrono::seconds(30)};
    /// JSON pointers into the result removed before comparing (timestamps, request ids...).
    std::vector<std::string> ignore_paths;
};

/// Identical responses, grouped.
struct response_group {
    std::string canonical;  ///< key-sorted JSON of the result (or "error <outcome> <code>")
    std::size_t count = 0;
    std::vector<std::uint64_t> request_ids;  ///< the first 20
    std::string sample;                     ///< the first 500 characters of one raw result
};

struct race_report {
    std::string tool;
    std::size_t calls = 0;
    std::vector<response_group> groups;  ///< largest first

    /// More than one distinct response to identical concurrent calls.
    [[nodiscard]] bool divergent() const noexcept { return groups.size() > 1; }
    [[nodiscard]] std::string explanation() const {
        if (!divergent()) return std::to_string(calls) + " identical calls to '" + tool + "' all returned the same response.";
        std::string s = std::to_string(calls) + " identical concurrent calls to '" + tool + "' returned " +
                        std::to_string(groups.size()) +
                        " different responses: shared state is probably not synchronised (a race), or the "
                        "response contains volatile fields (add them to race_options.ignore_paths).";
        for (std::size_t i = 0; i < groups.size() && i < 5; ++i)
            s += "\n  " + std::to_string(groups[i].count) + "x: " + groups[i].sample;
        return s;
    }
};

namespace detail {
inline std::string canonical_response(const call_result& c, const std::vector<std::string>& ignore) {
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

struct race_job {
    any_server server;
    client_options client;
    std::string tool;
    raw_json args;
    race_options options;
};

inline asio::awaitable<race_report> check_race(std::shared_ptr<race_job> job) {
    const any_server& server = job->server;
    const std::string& tool = job->tool;
    const raw_json& args = job->args;
    const race_options& o = job->options;
    race_report r;
    r.tool = tool;
    std::vector<session> sessions;
    for (std::size_t i = 0; i < std::max<std::size_t>(1, o.sessions); ++i)
        sessions.push_back(co_await connect(server, job->client));
    std::vector<asio::awaitable<call_result>> burst;
    for (std::size_t i = 0; i < o.concurrent; ++i) burst.push_back(sessions[i % sessions.size()].call_tool(tool, args, o.call));
    const auto results = co_await when_all(std::move(burst));
    for (auto& s : sessions) co_await s.close();
    std::map<std::string, response_group> groups;
    for (const auto& c : results) {
        const std::string key = canonical_response(c, o.ignore_paths);
        auto& g = groups[key];
        if (g.count++ == 0) {
            g.canonical = key;
            g.sample = c.answered() ? std::string(c.payload_text().substr(0, 500)) : c.describe();
        }
        if (g.request_ids.size() < 20) g.request_ids.push_back(c.request_id);
    }
    r.calls = results.size();
    for (auto& [k, g] : groups) r.groups.push_back(std::move(g));
    std::sort(r.groups.begin(), r.groups.end(), [](auto& a, auto& b) { return a.count > b.count; });
    co_return r;
}
}  // namespace detail

/// `concurrent` identical calls at once; responses compared after key-sorted
/// canonicalisation; divergent groups reported with counts and a sample each.
inline asio::awaitable<race_report> race_check(any_server server, std::string tool, const json& arguments,
                                               race_options options, client_options client) {
    return detail::check_race(std::make_shared<detail::race_job>(detail::race_job{
        std::move(server), std::move(client), std::move(tool), raw_json::from(arguments), std::move(options)}));
}
inline asio::awaitable<race_report> race_check(any_server server, std::string tool, const json& arguments,
                                               race_options options) {
    return race_check(std::move(server), std::move(tool), arguments, std::move(options), client_options{});
}
inline asio::awaitable<race_report> race_check(any_server server, std::string tool, const json& arguments) {
    return race_check(std::move(server), std::move(tool), arguments, race_options{}, client_options{});
}

}  // namespace mcp_loadtest

// The texts of the assertion macros (MCP_REQUIRE_PASSED and friends).
#include <mcp_loadtest/assertions.hpp>
