// Definitions of replay/recorded_load.hpp.
#pragma once

#include <mcp_loadtest/replay/recorded_load.hpp>

#include <mcp_loadtest/detail/clock.hpp>
#include <mcp_loadtest/session.hpp>

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mcp_loadtest {

namespace detail::recorded_load_impl {

struct recorded_step {
    std::string method;
    std::string tool;                 // tools/call: the tool
    raw_json arguments = raw_json::serialized("{}");  // tools/call: serialized once
    json params = json::object();     // other requests
    std::chrono::nanoseconds think{0};  // since the previous reply (or request) of the session
};

struct recorded_visit {
    std::chrono::nanoseconds arrival{0};  // since the first session's first request
    std::vector<recorded_step> steps;
};

struct shape {
    std::vector<recorded_visit> visits;
    std::chrono::nanoseconds span{0};
    double speed = 1;
    std::mutex mutex;  // guards t0: iterations may run on several threads
    std::optional<clock::time_point> t0;

    clock::time_point start() {
        std::lock_guard lock(mutex);
        if (!t0) t0 = clock::now();
        return *t0;
    }
};

inline std::chrono::nanoseconds scaled(std::chrono::nanoseconds d, double speed) {
    return std::chrono::nanoseconds(static_cast<std::int64_t>(static_cast<double>(d.count()) / speed));
}

struct replay_visit_job {
    std::shared_ptr<shape> plan;
    session* s;
    iteration* it;

    asio::awaitable<void> run() {
        const std::size_t n = plan->visits.size();
        const std::uint64_t k = it->index();
        const recorded_visit& v = plan->visits[k % n];
        const auto loop = static_cast<std::int64_t>(k / n);
        const auto due = plan->start() + scaled(v.arrival + plan->span * loop, plan->speed);
        if (const auto now = clock::now(); due > now) co_await it->think(due - now);
        for (const recorded_step& st : v.steps) {
            if (st.think.count() > 0) co_await it->think(scaled(st.think, plan->speed));
            if (st.method == "tools/call") {
                const arguments args(st.arguments);
                co_await it->measure(s->call_tool(st.tool, args));
            } else {
                co_await it->measure(s->request(st.method, st.params));
            }
        }
    }
};

}  // namespace detail::recorded_load_impl

MCP_LOADTEST_DECL recorded_load load_from_recording(const recording& r, recorded_load_options options) {
    using namespace detail::recorded_load_impl;
    if (!(options.speed > 0))
        throw std::invalid_argument("load_from_recording: speed must be above 0 (it is " + std::to_string(options.speed) +
                                    "): 2 runs the recording twice as fast");
    auto plan = std::make_shared<shape>();
    plan->speed = options.speed;
    std::optional<std::chrono::system_clock::time_point> first_start;
    std::size_t requests = 0;
    struct session_visit {
        std::chrono::system_clock::time_point start;
        std::chrono::nanoseconds length;  // first request to last reply (or request)
        recorded_visit v;
    };
    std::vector<session_visit> found;
    for (const auto& rs : r.sessions) {
        recorded_visit v;
        std::chrono::nanoseconds last{-1}, first{-1}, end{0};
        std::vector<std::pair<json, std::size_t>> open;  // request id -> step, awaiting its reply
        for (const auto& m : rs.messages) {
            const auto parsed = m.parsed();
            if (!parsed || !parsed->is_object()) continue;
            const json& msg = *parsed;
            const std::string method = msg.value("method", std::string());
            if (m.direction == message_direction::received) {
                if (method.empty() && msg.contains("id")) {
                    for (auto it = open.begin(); it != open.end(); ++it)
                        if (it->first == msg["id"]) {
                            last = m.at;
                            end = std::max(end, m.at);
                            open.erase(it);
                            break;
                        }
                }
                continue;
            }
            if (method.empty() || !msg.contains("id") || method == "initialize" || method == "server/discover") continue;
            recorded_step st;
            st.method = method;
            const json params = msg.contains("params") && msg["params"].is_object() ? msg["params"] : json::object();
            if (method == "tools/call") {
                st.tool = params.value("name", std::string());
                st.arguments = raw_json::from(params.value("arguments", json::object()));
            } else {
                st.params = params;
                st.params.erase("_meta");
            }
            if (first.count() < 0) first = m.at;
            if (options.think_times && last.count() >= 0 && m.at > last) st.think = m.at - last;
            last = m.at;
            end = std::max(end, m.at);
            open.emplace_back(msg["id"], v.steps.size());
            v.steps.push_back(std::move(st));
        }
        if (v.steps.empty()) continue;
        requests += v.steps.size();
        // The arrival: the session's start plus its first request, relative to the earliest.
        const auto start = rs.started + std::chrono::duration_cast<std::chrono::system_clock::duration>(first);
        if (!first_start || start < *first_start) first_start = start;
        found.push_back({start, end - first, std::move(v)});
    }
    if (found.empty())
        throw std::invalid_argument("load_from_recording: the recording holds no request to send (" +
                                    std::to_string(r.sessions.size()) +
                                    " sessions): record the traffic with client_options::record, or import it with "
                                    "import_messages()");
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
    std::chrono::nanoseconds span{0};
    for (auto& f : found) {
        f.v.arrival = std::chrono::duration_cast<std::chrono::nanoseconds>(f.start - *first_start);
        span = std::max(span, f.v.arrival + f.length);
        plan->visits.push_back(std::move(f.v));
    }
    // One pass ends with the last session's last reply; a loop starts after it, at least 1 ms on.
    plan->span = std::max(span, std::chrono::nanoseconds(std::chrono::milliseconds(1)));

    recorded_load out;
    out.sessions = plan->visits.size();
    out.requests = requests;
    out.recorded_span_s = std::chrono::duration<double>(plan->span).count();
    closed_load load;
    load.users = out.sessions;
    if (options.duration.count() > 0) {
        load.duration = options.duration;
    } else {
        // One pass: every visit once; the duration only bounds it (a slow server ends it).
        load.max_iterations = out.sessions;
        load.duration = scaled(plan->span, options.speed) + std::chrono::seconds(60);
    }
    out.load = load;
    out.body = iteration_body([plan](session& s, iteration& it) -> asio::awaitable<void> {
        return detail::start_owned(replay_visit_job{plan, &s, &it});
    });
    return out;
}

MCP_LOADTEST_DECL recorded_load load_from_recording(const recording& r) {
    return load_from_recording(r, recorded_load_options{});
}

}  // namespace mcp_loadtest
