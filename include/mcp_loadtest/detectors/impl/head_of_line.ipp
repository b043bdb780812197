// Definitions of detectors/head_of_line.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detectors/head_of_line.hpp>

#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

MCP_LOADTEST_DECL void latency_samples::add(const call_result& c) {
    samples.push_back(c.duration);
    if (c.outcome != outcome::ok && c.outcome != outcome::tool_error) ++failed;
    auto sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    const auto rank = [&](double p) {
        const auto r = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
        return sorted[std::clamp<std::size_t>(r, 1, sorted.size()) - 1];
    };
    min = sorted.front();
    p50 = rank(0.5);
    p90 = rank(0.9);
    max = sorted.back();
}

MCP_LOADTEST_DECL std::string head_of_line_report::verdict_sentence() const {
    using detail::format_ms;
    const std::string fast = "'" + fast_tool + "'", slow = "'" + slow_tool + "'";
    const auto where = [](const std::string& mode) { return mode == "one session" ? "on " + mode : mode; };
    if (verdict == head_of_line_verdict::indeterminate) return "INDETERMINATE (no head-of-line verdict): " + reason;
    if (verdict == head_of_line_verdict::blocked) {
        std::string s = "HEAD-OF-LINE BLOCKING: ", pool;
        for (const auto& sw : sweeps) {
            if (sw.blocking_starts_at_k == 0) {
                s += "not blocked " + where(sw.mode) + " up to k = " +
                     std::to_string(sw.steps.empty() ? 0 : sw.steps.back().k) + "; ";
                continue;
            }
            const auto blocked = std::find_if(sw.steps.begin(), sw.steps.end(), [](const auto& x) { return x.blocked; });
            s += where(sw.mode) + ", " + fast + " took p90 " + format_ms(blocked->fast.p90) + " (max " +
                 format_ms(blocked->fast.max) + ") once " + std::to_string(blocked->k) + " " + slow + " call" +
                 (blocked->k == 1 ? " was" : "s were") + " in flight; ";
            // A pool of N workers blocks from k = N: the last k that did not block bounds N from below.
            if (blocked->k == blocking_starts_at_k && blocked != sw.steps.begin() && pool.empty()) {
                const std::size_t below = std::prev(blocked)->k + 1;
                pool = ", which points to a pool of " +
                       (below == blocked->k ? std::string() : std::to_string(below) + " to ") +
                       std::to_string(blocked->k) + " workers";
            }
        }
        s += "alone it takes p90 " + format_ms(fast_alone.p90) + " and " + slow + " " + format_ms(slow_alone.p50) +
             " (blocked means p90 at or above " + format_ms(blocked_at) + "). Blocking starts at k = " +
             std::to_string(blocking_starts_at_k) + pool +
             ": the server runs tools/call on too few workers (or one event loop blocked by synchronous work), so "
             "a quick request waits behind slow ones; make handlers async, offload blocking work to threads, or "
             "enlarge the pool.";
        return s;
    }
    std::size_t largest_k = 0;
    std::chrono::nanoseconds worst{0};
    std::string modes;
    for (const auto& sw : sweeps) {
        modes += (modes.empty() ? "" : " and ") + where(sw.mode);
        for (const auto& step : sw.steps) {
            largest_k = std::max(largest_k, step.k);
            worst = std::max(worst, step.fast.p90);
        }
    }
    return "no head-of-line blocking: " + fast + " stayed fast with up to " + std::to_string(largest_k) + " " +
           slow + " calls in flight " + modes + " (p90 " + format_ms(fast_alone.p90) + " alone, at most " +
           format_ms(worst) + " under load; blocked would be at or above " + format_ms(blocked_at) + ", " +
           detail::format_plain(100 * blocked_fraction) + "% of the slow call's median " + format_ms(slow_alone.p50) + ").";
}

MCP_LOADTEST_DECL void to_json(json& j, const latency_samples& s) {
    json samples = json::array();
    for (auto d : s.samples) samples.push_back(d.count());
    j = json{{"samples_ns", std::move(samples)}, {"failed", s.failed},       {"min_ns", s.min.count()},
             {"p50_ns", s.p50.count()},          {"p90_ns", s.p90.count()}, {"max_ns", s.max.count()}};
}

MCP_LOADTEST_DECL void from_json(const json& j, latency_samples& s) {
    s.samples.clear();
    for (const auto& d : j.at("samples_ns")) s.samples.emplace_back(d.get<std::int64_t>());
    s.failed = j.at("failed").get<std::size_t>();
    s.min = std::chrono::nanoseconds(j.at("min_ns").get<std::int64_t>());
    s.p50 = std::chrono::nanoseconds(j.at("p50_ns").get<std::int64_t>());
    s.p90 = std::chrono::nanoseconds(j.at("p90_ns").get<std::int64_t>());
    s.max = std::chrono::nanoseconds(j.at("max_ns").get<std::int64_t>());
}

MCP_LOADTEST_DECL void to_json(json& j, const head_of_line_step& s) {
    j = json{{"k", s.k}, {"fast", s.fast}, {"slow", s.slow}, {"blocked", s.blocked}};
}

MCP_LOADTEST_DECL void from_json(const json& j, head_of_line_step& s) {
    s.k = j.at("k").get<std::size_t>();
    s.fast = j.at("fast").get<latency_samples>();
    s.slow = j.at("slow").get<latency_samples>();
    s.blocked = j.at("blocked").get<bool>();
}

MCP_LOADTEST_DECL void to_json(json& j, const head_of_line_sweep& s) {
    j = json{{"mode", s.mode}, {"steps", s.steps}, {"blocking_starts_at_k", s.blocking_starts_at_k}};
}

MCP_LOADTEST_DECL void from_json(const json& j, head_of_line_sweep& s) {
    s.mode = j.at("mode").get<std::string>();
    s.steps = j.at("steps").get<std::vector<head_of_line_step>>();
    s.blocking_starts_at_k = j.at("blocking_starts_at_k").get<std::size_t>();
}

MCP_LOADTEST_DECL void to_json(json& j, const head_of_line_report& r) {
    j = json{{"verdict", to_string(r.verdict)},
             {"fast_tool", r.fast_tool},
             {"slow_tool", r.slow_tool},
             {"fast_alone", r.fast_alone},
             {"slow_alone", r.slow_alone},
             {"tail", r.tail},
             {"blocked_fraction", r.blocked_fraction},
             {"fast_fraction", r.fast_fraction},
             {"blocked_at_ns", r.blocked_at.count()},
             {"fast_limit_ns", r.fast_limit.count()},
             {"sweeps", r.sweeps},
             {"blocking_starts_at_k", r.blocking_starts_at_k},
             {"reason", r.reason},
             {"took_ns", r.took.count()},
             {"verdict_sentence", r.verdict_sentence()}};
}

MCP_LOADTEST_DECL void from_json(const json& j, head_of_line_report& r) {
    const auto v = j.at("verdict").get<std::string>();
    r.verdict = v == "blocked"         ? head_of_line_verdict::blocked
                : v == "indeterminate" ? head_of_line_verdict::indeterminate
                                       : head_of_line_verdict::not_blocked;
    r.fast_tool = j.at("fast_tool").get<std::string>();
    r.slow_tool = j.at("slow_tool").get<std::string>();
    r.fast_alone = j.at("fast_alone").get<latency_samples>();
    r.slow_alone = j.at("slow_alone").get<latency_samples>();
    r.tail = j.at("tail").get<std::string>();
    r.blocked_fraction = j.at("blocked_fraction").get<double>();
    r.fast_fraction = j.at("fast_fraction").get<double>();
    r.blocked_at = std::chrono::nanoseconds(j.at("blocked_at_ns").get<std::int64_t>());
    r.fast_limit = std::chrono::nanoseconds(j.at("fast_limit_ns").get<std::int64_t>());
    r.sweeps = j.at("sweeps").get<std::vector<head_of_line_sweep>>();
    r.blocking_starts_at_k = j.at("blocking_starts_at_k").get<std::size_t>();
    r.reason = j.at("reason").get<std::string>();
    r.took = std::chrono::nanoseconds(j.at("took_ns").get<std::int64_t>());
}

namespace detail {

/// A call started after `delay`: the fast calls that follow the slow ones.
struct delayed_call_job {
    session* s;
    const std::string* tool;
    const raw_json* arguments;
    std::chrono::nanoseconds delay;
    call_options options;
    asio::awaitable<call_result> run() {
        asio::steady_timer timer(co_await asio::this_coro::executor, delay);
        asio::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        co_return co_await s->call_tool(*tool, *arguments, options);
    }
};

struct head_of_line_job {
    any_server server;
    client_options client;
    head_of_line_call fast, slow;
    raw_json fast_wire, slow_wire;  // serialized once; referenced by every call
    head_of_line_options o;
    head_of_line_report r{};

    asio::awaitable<head_of_line_report> run() {
        const auto t0 = std::chrono::steady_clock::now();
        r.fast_tool = fast.tool;
        r.slow_tool = slow.tool;
        r.blocked_fraction = o.blocked_fraction;
        r.fast_fraction = o.fast_fraction;
        auto sessions = co_await open_sessions(server, o.across_sessions ? 2 : 1, client);
        if (co_await measure_alone(sessions[0])) {
            if (o.one_session) co_await sweep("one session", sessions[0], sessions[0]);
            if (o.across_sessions) co_await sweep("across sessions", sessions[0], sessions[1]);
            judge();
        }
        co_await close_sessions(sessions);
        r.took = std::chrono::steady_clock::now() - t0;
        co_return std::move(r);
    }

    /// Each call alone, one at a time; false (indeterminate) when they cannot serve as the yardstick.
    asio::awaitable<bool> measure_alone(session& s) {
        for (std::size_t i = 0; i < o.fast_samples; ++i) alone(r.fast_alone, co_await s.call_tool(fast.tool, fast_wire, o.call));
        for (std::size_t i = 0; i < o.slow_samples; ++i) alone(r.slow_alone, co_await s.call_tool(slow.tool, slow_wire, o.call));
        co_return judgeable_alone();
    }

    std::string first_failure{};  // of the calls made alone
    void alone(latency_samples& into, const call_result& c) {
        into.add(c);
        if (first_failure.empty() && c.outcome != outcome::ok && c.outcome != outcome::tool_error)
            first_failure = c.describe_call() + ": " + c.describe();
    }

    bool judgeable_alone() {
        r.blocked_at = std::chrono::nanoseconds(static_cast<std::int64_t>(o.blocked_fraction * static_cast<double>(r.slow_alone.p50.count())));
        r.fast_limit = std::chrono::nanoseconds(static_cast<std::int64_t>(o.fast_fraction * static_cast<double>(r.slow_alone.p50.count())));
        const std::string fast_name = "'" + fast.tool + "'", slow_name = "'" + slow.tool + "'";
        if (r.fast_alone.failed > 0 || r.slow_alone.failed > 0) {
            indeterminate(std::to_string(r.fast_alone.failed) + " of " + std::to_string(o.fast_samples) + " " + fast_name +
                          " and " + std::to_string(r.slow_alone.failed) + " of " + std::to_string(o.slow_samples) + " " +
                          slow_name + " calls failed when made alone (" + first_failure +
                          "); both calls must work on their own: check the tool names and arguments, and that "
                          "call.timeout is longer than the slow call.");
            return false;
        }
        if (r.fast_alone.p90 > r.fast_limit) {
            indeterminate(fast_name + " is not fast next to " + slow_name + ": its p90 alone is " +
                          format_ms(r.fast_alone.p90) + ", more than " + format_plain(100 * o.fast_fraction) + "% of " +
                          slow_name + "'s median " + format_ms(r.slow_alone.p50) +
                          ", so waiting behind it cannot be told from its own latency; make the slow call slower.");
            return false;
        }
        return true;
    }

    // `mode` is a const char*: no class-type parameter by value in a coroutine (owned_coroutine.hpp).
    asio::awaitable<void> sweep(const char* mode, session& fast_session, session& slow_session) {
        head_of_line_sweep sw;
        sw.mode = mode;
        for (const std::size_t k : o.sweep) {
            auto step = co_await contended(fast_session, slow_session, k);
            const bool blocked = step.blocked;
            sw.steps.push_back(std::move(step));
            if (blocked && sw.blocking_starts_at_k == 0) sw.blocking_starts_at_k = k;
            if (blocked && o.stop_at_first_block) break;
        }
        r.sweeps.push_back(std::move(sw));
    }

    /// k slow calls, and the fast calls started one by one over the first 40%
    /// of the slow call's median (so each starts while they are surely in flight;
    /// a blocked one waits at least the remaining 60%), all released together.
    asio::awaitable<head_of_line_step> contended(session& fast_session, session& slow_session, std::size_t k) {
        std::vector<asio::awaitable<call_result>> armed;
        for (std::size_t i = 0; i < k; ++i) armed.push_back(slow_session.call_tool(slow.tool, slow_wire, o.call));
        const auto window = r.slow_alone.p50 * 2 / 5;
        const auto m = static_cast<std::int64_t>(o.fast_under_load);
        for (std::int64_t j = 1; j <= m; ++j)
            armed.push_back(start_owned(delayed_call_job{&fast_session, &fast.tool, &fast_wire, window * j / m, o.call}));
        auto burst = co_await release_together(std::move(armed));
        head_of_line_step step;
        step.k = k;
        for (std::size_t i = 0; i < burst.results.size(); ++i) (i < k ? step.slow : step.fast).add(burst.results[i]);
        step.blocked = step.fast.p90 >= r.blocked_at;
        co_return step;
    }

    void judge() {
        for (const auto& sw : r.sweeps)
            if (sw.blocking_starts_at_k != 0 && (r.blocking_starts_at_k == 0 || sw.blocking_starts_at_k < r.blocking_starts_at_k))
                r.blocking_starts_at_k = sw.blocking_starts_at_k;
        r.verdict = r.blocking_starts_at_k ? head_of_line_verdict::blocked : head_of_line_verdict::not_blocked;
    }

    void indeterminate(std::string why) {
        r.verdict = head_of_line_verdict::indeterminate;
        r.reason = std::move(why);
    }
};

MCP_LOADTEST_DECL void check_head_of_line_options(const head_of_line_options& o) {
    std::string wrong;
    if (o.fast_samples == 0 || o.slow_samples == 0 || o.fast_under_load == 0)
        wrong = "fast_samples, slow_samples and fast_under_load must be at least 1";
    else if (!o.one_session && !o.across_sessions)
        wrong = "one_session or across_sessions must be true";
    else if (o.sweep.size() == 0)
        wrong = "the sweep is empty; give the numbers of slow calls in flight to try, e.g. {1, 2, 4, 8}";
    else if (!(o.blocked_fraction > o.fast_fraction && o.fast_fraction > 0))
        wrong = "blocked_fraction must be above fast_fraction, and fast_fraction above 0";
    for (std::size_t i = 0; wrong.empty() && i < o.sweep.size(); ++i)
        if (o.sweep.begin()[i] == 0 || (i > 0 && o.sweep.begin()[i] <= o.sweep.begin()[i - 1]))
            wrong = "the sweep must be ascending numbers of at least 1, e.g. {1, 2, 4, 8}";
    if (!wrong.empty()) throw std::invalid_argument("head_of_line_check: " + wrong);
}

}  // namespace detail

MCP_LOADTEST_DECL asio::awaitable<head_of_line_report> head_of_line_check(any_server server, head_of_line_call fast_call,
                                                               head_of_line_call slow_call,
                                                               head_of_line_options options, client_options client) {
    detail::check_head_of_line_options(options);
    if (!fast_call.arguments.is_object() || !slow_call.arguments.is_object())
        throw std::invalid_argument("head_of_line_check: the arguments of '" + fast_call.tool + "' and '" +
                                    slow_call.tool + "' must be JSON objects (use mlt::args(...) or json::object())");
    auto fast_wire = raw_json::from(fast_call.arguments);
    auto slow_wire = raw_json::from(slow_call.arguments);
    return detail::start_owned(detail::head_of_line_job{std::move(server), std::move(client), std::move(fast_call),
                                                        std::move(slow_call), std::move(fast_wire),
                                                        std::move(slow_wire), options});
}

MCP_LOADTEST_DECL asio::awaitable<head_of_line_report> head_of_line_check(any_server server, head_of_line_call fast_call,
                                                               head_of_line_call slow_call,
                                                               head_of_line_options options) {
    return head_of_line_check(std::move(server), std::move(fast_call), std::move(slow_call), options, client_options{});
}

}  // namespace mcp_loadtest
