// Definitions of detectors/deadlock_probe.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detectors/deadlock_probe.hpp>

#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

namespace detail {

MCP_LOADTEST_DECL void judge(deadlock_report& r, const probe_options& o) {
    const std::size_t n = r.calls.size();
    const std::string tool = "'" + r.tool + "'";
    if (r.deadlocked > 0) {
        r.verdict = probe_verdict::critical;
        r.explanation = "DEADLOCK: " + std::to_string(r.deadlocked) + " of " + std::to_string(n) + " concurrent " +
                        r.method + " calls to " + tool + " never answered within " +
                        std::to_string(o.hang_threshold.count() + o.grace.count()) + " ms (request ids " +
                        format_list(r.deadlocked_ids) +
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
        r.explanation = "all " + std::to_string(n) + " concurrent calls to " + tool + " answered" +
                        (r.slow ? " (" + std::to_string(r.slow) + " slowly)" : std::string()) + ".";
    }
}

struct probe_job {
    any_server server;
    client_options client;
    std::string tool;
    raw_json args;
    probe_options o;
    deadlock_report r{};

    asio::awaitable<deadlock_report> run() {
        const auto t0 = std::chrono::steady_clock::now();
        r.tool = tool;
        if (o.grace.count() == 0) o.grace = o.hang_threshold / 2;
        std::vector<session> sessions;
        try {
            sessions = co_await open_sessions(server, o.sessions, client);
        } catch (const connect_error& e) {
            r.verdict = probe_verdict::critical;
            r.failed_stage = "initialize";
            r.explanation = std::string("the server never completed initialize, so no tool could be probed: ") + e.what();
            r.took = std::chrono::steady_clock::now() - t0;
            co_return std::move(r);
        }
        if (co_await tools_listed(sessions)) {
            call_options call;
            call.timeout = o.hang_threshold;
            call.grace = o.grace;
            for (std::size_t round = 0; round < o.rounds && r.deadlocked == 0; ++round) {
                std::vector<asio::awaitable<call_result>> armed;  // created, nothing sent yet
                for (std::size_t s = 0; s < sessions.size(); ++s)
                    for (std::size_t i = 0; i < o.concurrent; ++i) armed.push_back(sessions[s].call_tool(tool, args, call));
                auto burst = co_await release_together(std::move(armed));
                r.write_spread = burst.write_spread;
                ++r.rounds_run;
                for (std::size_t i = 0; i < burst.results.size(); ++i) tally(burst.results[i], i / o.concurrent, round);
            }
            judge(r, o);
        }
        if (r.has_deadlock() && o.collect_evidence) co_await take_evidence(sessions);
        if (r.deadlocked > 0) sessions.clear();  // wedged: killed at once, not waited for
        co_await close_sessions(sessions);
        r.took = std::chrono::steady_clock::now() - t0;
        co_return std::move(r);
    }

    /// Snapshots the servers whose calls never answered (all of them when
    /// tools/list was stuck), and adds what their threads do to the explanation.
    asio::awaitable<void> take_evidence(std::vector<session>& sessions) {
        std::vector<pid_t> wedged;
        for (std::size_t s = 0; s < sessions.size(); ++s) {
            const bool stuck = !r.failed_stage.empty() ||
                               std::any_of(r.calls.begin(), r.calls.end(), [&](const probe_call& c) {
                                   return c.session == s && c.outcome == outcome::deadlock;
                               });
            if (stuck && sessions[s].valid() && sessions[s].pid() > 0) wedged.push_back(sessions[s].pid());
        }
        if (wedged.empty()) co_return;
        r.evidence = co_await async_snapshot_hang_evidence(std::move(wedged), o.evidence);
        if (r.evidence.taken()) r.explanation += " Hang evidence: " + r.evidence.summary();
    }

    /// tools/list on every session within the short timeout, and the tool exists.
    asio::awaitable<bool> tools_listed(std::vector<session>& sessions) {
        call_options list_options;
        list_options.timeout = o.tools_list_timeout;
        auto lists = co_await concurrently(sessions, sessions.size(),
                                           [&](session& s, std::size_t) { return s.list_tools(list_options); });
        for (const auto& tools : lists) {
            if (!tools.ok()) {
                r.verdict = probe_verdict::critical;
                r.failed_stage = "tools/list";
                r.explanation = "tools/list did not succeed within " + std::to_string(o.tools_list_timeout.count()) +
                                " ms (" + tools.status.describe() +
                                "): the server is stuck before any tool is called (initialisation blocking its "
                                "event loop?).";
                co_return false;
            }
            if (!tools.find(tool)) {
                std::string names;
                for (const auto& t : tools) names += (names.empty() ? "" : ", ") + t.name;
                co_await close_sessions(sessions);
                throw std::invalid_argument("deadlock_probe: the server has no tool named '" + tool +
                                            "' (tools/list returned: " + names + ")");
            }
        }
        co_return true;
    }

    void tally(const call_result& c, std::size_t session, std::size_t round) {
        r.calls.push_back({session, round, c.request_id, c.outcome, c.duration, c.message});
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
};

}  // namespace detail

MCP_LOADTEST_DECL asio::awaitable<deadlock_report> deadlock_probe(any_server server, std::string tool, const json& arguments,
                                                       probe_options options, client_options client) {
    if (options.concurrent == 0 || options.sessions == 0 || options.rounds == 0)
        throw std::invalid_argument("deadlock_probe: concurrent, sessions and rounds must be at least 1");
    return detail::start_owned(detail::probe_job{std::move(server), std::move(client), std::move(tool),
                                                 raw_json::from(arguments), options});
}

MCP_LOADTEST_DECL asio::awaitable<deadlock_report> deadlock_probe(any_server server, std::string tool, const json& arguments,
                                                       probe_options options) {
    return deadlock_probe(std::move(server), std::move(tool), arguments, options, client_options{});
}

MCP_LOADTEST_DECL void to_json(json& j, const probe_call& c) {
    j = json{{"session", c.session},
             {"round", c.round},
             {"request_id", c.request_id},
             {"outcome", std::string(to_string(c.outcome))},
             {"duration_ns", c.duration.count()},
             {"message", c.message}};
}

MCP_LOADTEST_DECL void from_json(const json& j, probe_call& c) {
    c.session = j.at("session").get<std::size_t>();
    c.round = j.at("round").get<std::size_t>();
    c.request_id = j.at("request_id").get<std::uint64_t>();
    const auto name = j.at("outcome").get<std::string>();
    c.outcome = outcome_from_name(name);
    if (to_string(c.outcome) != name) throw std::invalid_argument("probe_call.outcome: unknown outcome \"" + name + "\"");
    c.duration = std::chrono::nanoseconds(j.at("duration_ns").get<std::int64_t>());
    c.message = j.at("message").get<std::string>();
}

MCP_LOADTEST_DECL void to_json(json& j, const deadlock_report& r) {
    j = json{{"verdict", std::string(to_string(r.verdict))},
             {"tool", r.tool},
             {"method", r.method},
             {"failed_stage", r.failed_stage},
             {"explanation", r.explanation},
             {"calls", r.calls},
             {"ok", r.ok},
             {"slow", r.slow},
             {"deadlocked", r.deadlocked},
             {"failed", r.failed},
             {"deadlocked_ids", r.deadlocked_ids},
             {"rounds_run", r.rounds_run},
             {"write_spread_ns", r.write_spread.count()},
             {"took_ns", r.took.count()},
             {"evidence", r.evidence}};
}

MCP_LOADTEST_DECL void from_json(const json& j, deadlock_report& r) {
    const auto verdict = j.at("verdict").get<std::string>();
    bool known = false;
    for (auto v : {probe_verdict::pass, probe_verdict::warning, probe_verdict::critical})
        if (to_string(v) == verdict) {
            r.verdict = v;
            known = true;
        }
    if (!known) throw std::invalid_argument("deadlock_report.verdict: unknown verdict \"" + verdict + "\"");
    r.tool = j.at("tool").get<std::string>();
    r.method = j.at("method").get<std::string>();
    r.failed_stage = j.at("failed_stage").get<std::string>();
    r.explanation = j.at("explanation").get<std::string>();
    r.calls = j.at("calls").get<std::vector<probe_call>>();
    r.ok = j.at("ok").get<std::size_t>();
    r.slow = j.at("slow").get<std::size_t>();
    r.deadlocked = j.at("deadlocked").get<std::size_t>();
    r.failed = j.at("failed").get<std::size_t>();
    r.deadlocked_ids = j.at("deadlocked_ids").get<std::vector<std::uint64_t>>();
    r.rounds_run = j.at("rounds_run").get<std::size_t>();
    r.write_spread = std::chrono::nanoseconds(j.at("write_spread_ns").get<std::int64_t>());
    r.took = std::chrono::nanoseconds(j.at("took_ns").get<std::int64_t>());
    r.evidence = j.at("evidence").get<hang_evidence>();
}

}  // namespace mcp_loadtest
