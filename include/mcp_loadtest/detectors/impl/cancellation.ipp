// Definitions of detectors/cancellation.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detectors/cancellation.hpp>

#include <mcp_loadtest/detail/session/cancel_moment.hpp>
#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/sessions.hpp>
#include <mcp_loadtest/when_all.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mcp_loadtest {

MCP_LOADTEST_DECL const cancel_moment_report* cancellation_report::moment(cancel_moment m) const noexcept {
    for (const auto& r : moments)
        if (r.moment == m) return &r;
    return nullptr;
}

namespace detail {

MCP_LOADTEST_DECL std::chrono::nanoseconds median_of(std::vector<std::chrono::nanoseconds> v) {
    if (v.empty()) return std::chrono::nanoseconds(0);
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}

/// An uncancelled call that worked (a tool error is the tool's answer).
MCP_LOADTEST_DECL bool answered_normally(const call_result& c) noexcept {
    return c.outcome == outcome::ok || c.outcome == outcome::tool_error;
}

MCP_LOADTEST_DECL std::string moment_phrase(cancel_moment m) {
    switch (m) {
        case cancel_moment::after_send: return "right after the send";
        case cancel_moment::mid_call: return "mid-call";
        case cancel_moment::reply_due: return "just as the reply was due";
    }
    return "";
}

MCP_LOADTEST_DECL void count_fates(cancel_moment_report& m) {
    m.sent = m.reply_first = m.honoured = m.replied_anyway = m.crossed = 0;
    for (const auto& c : m.calls) {
        switch (c.fate) {
            case cancel_fate::reply_first: ++m.reply_first; break;
            case cancel_fate::honoured: ++m.honoured; break;
            case cancel_fate::replied_anyway: ++m.replied_anyway; break;
            case cancel_fate::crossed: ++m.crossed; break;
        }
        if (c.fate != cancel_fate::reply_first) ++m.sent;
    }
}

MCP_LOADTEST_DECL void judge_cancellation(cancellation_report& r, const cancellation_options& o) {
    r.sent = r.honoured = r.replied_anyway = r.crossed = r.reply_first = r.crashes = r.later_failed = 0;
    bool slower = false, all_baselines_failed = !r.moments.empty();
    for (auto& m : r.moments) {
        count_fates(m);
        r.sent += m.sent;
        r.honoured += m.honoured;
        r.replied_anyway += m.replied_anyway;
        r.crossed += m.crossed;
        r.reply_first += m.reply_first;
        r.crashes += m.crashed ? 1 : 0;
        r.later_failed += m.later_failed;
        m.slower = m.followup_median.count() > 0 && m.baseline_median.count() > 0 &&
                   static_cast<double>(m.followup_median.count()) > o.slower_ratio * static_cast<double>(m.baseline_median.count()) &&
                   m.followup_median - m.baseline_median > o.slower_margin;
        slower = slower || m.slower;
        all_baselines_failed = all_baselines_failed && m.baseline_failed;
    }
    r.inconclusive_reason.clear();
    if (r.crashes > 0 || r.later_failed > 0) r.verdict = cancellation_verdict::critical;
    else if (r.replied_anyway > 0 || slower) r.verdict = cancellation_verdict::warning;
    else if (all_baselines_failed) {
        r.verdict = cancellation_verdict::inconclusive;
        r.inconclusive_reason = "the tool does not answer even uncancelled calls (" + r.moments.front().failure +
                                "); make it work first, then check cancellation";
    } else if (r.sent == 0) {
        r.verdict = cancellation_verdict::inconclusive;
        r.inconclusive_reason = "every call ended before its cancel moment, so no cancel reached the server; use a "
                                "slower tool or arguments that make the call last longer";
    } else {
        r.verdict = cancellation_verdict::pass;
    }
}

/// "after_send 4/4, mid_call 2/4": a count per moment that has any.
template <class Count>
std::string per_moment(const cancellation_report& r, Count count) {
    std::string s;
    for (const auto& m : r.moments)
        if (count(m) > 0)
            s += (s.empty() ? "" : ", ") + std::string(to_string(m.moment)) + " " + std::to_string(count(m)) + "/" +
                 std::to_string(m.sent);
    return s;
}

struct cancellation_job {
    any_server server;
    client_options client;
    std::string tool;
    raw_json args;
    cancellation_options o;
    cancellation_report report{};
    std::vector<session> sessions{};

    asio::awaitable<cancellation_report> run() {
        const auto t0 = std::chrono::steady_clock::now();
        report.tool = tool;
        for (auto m : {cancel_moment::after_send, cancel_moment::mid_call, cancel_moment::reply_due})
            if ((m == cancel_moment::after_send && o.after_send) || (m == cancel_moment::mid_call && o.mid_call) ||
                (m == cancel_moment::reply_due && o.reply_due))
                report.moments.emplace_back().moment = m;
        // A crash is reported with the server's last words: keep its stderr.
        if (auto* stdio = std::get_if<stdio_server>(&server)) {
            if (stdio->stderr_to == stderr_mode::inherit) stdio->stderr_to = stderr_mode::tee;
            else if (stdio->stderr_to == stderr_mode::discard) stdio->stderr_to = stderr_mode::capture;
        }
        sessions = co_await open_sessions(server, report.moments.size(), client);
        std::vector<asio::awaitable<bool>> tries;
        for (std::size_t i = 0; i < sessions.size(); ++i) tries.push_back(try_moment(i));
        co_await when_all(std::move(tries));
        co_await close_sessions(sessions);
        judge_cancellation(report, o);
        report.took = std::chrono::steady_clock::now() - t0;
        co_return std::move(report);
    }

    asio::awaitable<void> sleep_for(std::chrono::nanoseconds d) {
        if (d.count() <= 0) co_return;
        asio::steady_timer timer(co_await asio::this_coro::executor, d);
        asio::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }

    /// Cancels request `id` of session `i` once `delay` has passed (at once for 0).
    asio::awaitable<call_result> cancel_after(std::size_t i, std::uint64_t id, std::chrono::nanoseconds delay) {
        co_await sleep_for(delay);
        sessions[i].cancel(id, "cancelled by mcp_loadtest's cancellation check");
        co_return call_result{};
    }

    /// An uncancelled call after the first cancel: false when the moment must stop.
    bool later_call(std::size_t i, const call_result& c, std::vector<std::chrono::nanoseconds>& into) {
        auto& m = report.moments[i];
        ++m.later_calls;
        if (answered_normally(c)) {
            into.push_back(c.duration);
            return true;
        }
        if (c.outcome == outcome::crash || !sessions[i].alive()) return false;  // a crash: noted by the caller
        if (m.later_failed++ == 0) m.failure = c.describe_call() + ": " + c.describe();
        return false;
    }

    asio::awaitable<void> note_crash(std::size_t i) {
        auto& m = report.moments[i];
        auto& s = sessions[i];
        co_await sleep_for(std::chrono::milliseconds(50));  // let the stderr pipe drain
        std::size_t cancels = 0;
        for (const auto& c : m.calls) cancels += c.fate != cancel_fate::reply_first ? 1 : 0;
        if (cancels == 0) {  // it died of uncancelled calls: not this check's bug, and nothing to judge
            m.baseline_failed = true;
            if (m.failure.empty()) m.failure = "the server " + s.exit().describe() + " before any cancel";
            co_return;
        }
        m.crashed = true;
        m.crashed_after_cancels = cancels;
        m.exit = s.exit();
        m.stderr_tail = s.stderr_tail(2000);
    }

    asio::awaitable<bool> try_moment(std::size_t i) {
        auto& m = report.moments[i];
        auto& s = sessions[i];
        std::vector<std::chrono::nanoseconds> uncancelled;
        for (std::size_t b = 0; b < o.baseline_calls; ++b) {
            const call_result c = co_await s.call_tool(tool, args, o.call);
            if (!answered_normally(c)) {
                m.baseline_failed = true;
                m.failure = c.describe_call() + ": " + c.describe();
                co_return false;
            }
            uncancelled.push_back(c.duration);
        }
        m.baseline_median = median_of(uncancelled);
        const auto allowance = std::chrono::nanoseconds(o.crossing_allowance);
        bool stopped = false;
        std::chrono::nanoseconds came_first{0};  // the last attempt's reply beat its cancel: it took this long
        for (std::size_t k = 0; k < o.cancels_per_moment && !stopped; ++k) {
            // The latency now: the median of the last few uncancelled calls (the first calls of a
            // freshly started server are often slower), or less when the last cancel came too late.
            const auto recent = uncancelled.size() > 5 ? uncancelled.end() - 5 : uncancelled.begin();
            auto expected = median_of(std::vector<std::chrono::nanoseconds>(recent, uncancelled.end()));
            if (came_first.count() > 0) expected = std::min(expected, came_first);
            came_first = std::chrono::nanoseconds(0);
            cancelled_call cc;
            cc.expected = expected;
            cc.aimed_at = cancel_delay(m.moment, expected, k, o.cancels_per_moment);
            ++m.attempted;
            std::vector<asio::awaitable<call_result>> both;
            both.push_back(s.call_tool(tool, args, o.call));  // its id is taken here, the request sent when started
            cc.request_id = s.last_request_id();
            both.push_back(cancel_after(i, cc.request_id, cc.aimed_at));
            const auto results = co_await when_all(std::move(both));
            const call_result& c = results.front();
            cc.ended = c.outcome;
            cc.cancel_after = c.duration;
            if (c.outcome != outcome::cancelled) {
                cc.fate = cancel_fate::reply_first;
                came_first = c.duration;
                m.calls.push_back(cc);
                stopped = !later_call(i, c, uncancelled);
            } else {
                // Long enough for a reply the server sends anyway (or for it to die of the cancel).
                co_await sleep_for(std::max(expected * 3 / 2, expected + allowance) + allowance - c.duration);
                m.calls.push_back(cc);
                if (!s.alive()) break;
                const call_result probe = co_await s.call_tool(tool, args, o.call);
                stopped = !later_call(i, probe, uncancelled);
            }
        }
        std::vector<std::chrono::nanoseconds> followup;
        for (std::size_t f = 0; f < o.followup_calls && !stopped && s.alive(); ++f) {
            const call_result later = co_await s.call_tool(tool, args, o.call);
            stopped = !later_call(i, later, followup);
        }
        m.followup_median = median_of(followup);
        co_await sleep_for(allowance);  // a last chance for replies on their way
        classify(i);
        if (!s.alive()) co_await note_crash(i);
        co_return true;
    }

    /// Each cancelled call's fate, from the replies that arrived after it ended.
    void classify(std::size_t i) {
        auto& m = report.moments[i];
        const auto& late = sessions[i].late_replies();
        for (auto& c : m.calls) {
            if (c.fate == cancel_fate::reply_first) continue;
            c.fate = cancel_fate::honoured;
            c.reply_after = std::chrono::nanoseconds(0);
            for (const auto& l : late) {
                if (l.request_id != c.request_id) continue;
                c.reply_after = l.after;
                c.fate = reply_crossed_cancel(c.cancel_after, l.after, c.expected, o.crossing_allowance)
                             ? cancel_fate::crossed
                             : cancel_fate::replied_anyway;
                break;
            }
        }
    }
};

}  // namespace detail

MCP_LOADTEST_DECL std::string cancellation_report::verdict_sentence() const {
    using detail::format_ms;
    const auto total = [&](std::size_t n) { return std::to_string(n) + " of " + std::to_string(sent); };
    std::string s;
    if (verdict == cancellation_verdict::inconclusive) return "INCONCLUSIVE: " + inconclusive_reason + ".";
    for (const auto& m : moments) {
        if (!m.crashed) continue;
        const cancelled_call* last = nullptr;
        for (const auto& c : m.calls)
            if (c.fate != cancel_fate::reply_first) last = &c;
        // A network server has no exit status here: its connection closing is the crash.
        s += "CRASH AFTER CANCEL: " + (m.exit.exited ? "the server " + m.exit.describe() : "the server's connection closed") + " after " +
             std::to_string(m.crashed_after_cancels) + " call(s) cancelled " + detail::moment_phrase(m.moment);
        if (last)
            s += " (the last cancel sent " + format_ms(last->cancel_after) + " after its request; uncancelled calls took " +
                 format_ms(last->expected) + ")";
        const std::string words = detail::last_line_of(m.stderr_tail);
        if (!words.empty()) s += "; its last stderr line: \"" + words + "\"";
        s += ". ";
    }
    if (crashes > 0)
        s += "A notifications/cancelled that lands between a handler returning and its reply being sent kills the "
             "server (\"Request already responded to\": python-sdk#2416): make answering a request and cancelling it "
             "exclusive, so that whichever comes second does nothing. ";
    if (later_failed > 0) {
        std::string first;
        for (const auto& m : moments)
            if (m.later_failed > 0 && first.empty()) first = m.failure;
        s += "LATER CALLS FAILED: " + std::to_string(later_failed) +
             " uncancelled call(s) after the cancels failed (first: " + first +
             "): a cancel leaves the server broken; release what a cancelled handler holds (locks, slots, "
             "connections) on the cancellation path. ";
    }
    if (replied_anyway > 0) {
        s += std::string(verdict == cancellation_verdict::warning ? "REPLIED AFTER CANCEL: " : "Also: ") +
             "the server answered " + total(replied_anyway) + " cancelled calls anyway (" +
             detail::per_moment(*this, [](const cancel_moment_report& m) { return m.replied_anyway; }) +
             "); the spec says the receiver of notifications/cancelled SHOULD NOT send a response for the cancelled "
             "request (basic/utilities/cancellation). Clients drop such replies, but they show the work went on: stop "
             "the handler and drop its reply when the cancel arrives. ";
    }
    for (const auto& m : moments)
        if (m.slower)
            s += "SLOWER AFTER CANCELS (" + std::string(to_string(m.moment)) + "): the median uncancelled call took " +
                 format_ms(m.followup_median) + " after the cancels against " + format_ms(m.baseline_median) +
                 " before: cancelled work still runs and competes; stop it when the cancel arrives. ";
    if (!s.empty()) {
        s.pop_back();
        return s;
    }
    std::string medians;
    for (const auto& m : moments)
        medians += (medians.empty() ? "" : ", ") + std::string(to_string(m.moment)) + " " +
                   format_ms(m.baseline_median) + " -> " + format_ms(m.followup_median);
    return "cancellation safe: " + std::to_string(sent) + " cancels of '" + tool + "' (" + std::to_string(honoured) +
           " honoured, " + std::to_string(crossed) + " crossed by a reply already on its way; " +
           std::to_string(reply_first) + " calls ended before their cancel moment), no crash, and uncancelled calls as "
           "fast as before (median " + medians + ").";
}

MCP_LOADTEST_DECL void to_json(json& j, const cancelled_call& c) {
    j = json{{"request_id", c.request_id},         {"fate", to_string(c.fate)},
             {"ended", to_string(c.ended)},        {"expected_ns", c.expected.count()},
             {"aimed_at_ns", c.aimed_at.count()}, {"cancel_after_ns", c.cancel_after.count()},
             {"reply_after_ns", c.reply_after.count()}};
}

MCP_LOADTEST_DECL void from_json(const json& j, cancelled_call& c) {
    c.request_id = j.at("request_id").get<std::uint64_t>();
    const auto fate = j.at("fate").get<std::string>();
    bool known = false;
    for (auto f : {cancel_fate::reply_first, cancel_fate::honoured, cancel_fate::replied_anyway, cancel_fate::crossed})
        if (to_string(f) == fate) c.fate = f, known = true;
    if (!known) throw std::invalid_argument("cancelled_call.fate: \"" + fate + "\" is not one of reply_first, honoured, replied_anyway, crossed");
    c.ended = outcome_from_name(j.at("ended").get<std::string>());
    c.expected = std::chrono::nanoseconds(j.at("expected_ns").get<std::int64_t>());
    c.aimed_at = std::chrono::nanoseconds(j.at("aimed_at_ns").get<std::int64_t>());
    c.cancel_after = std::chrono::nanoseconds(j.at("cancel_after_ns").get<std::int64_t>());
    c.reply_after = std::chrono::nanoseconds(j.at("reply_after_ns").get<std::int64_t>());
}

MCP_LOADTEST_DECL void to_json(json& j, const cancel_moment_report& m) {
    j = json{{"moment", to_string(m.moment)},
             {"attempted", m.attempted},
             {"sent", m.sent},
             {"reply_first", m.reply_first},
             {"honoured", m.honoured},
             {"replied_anyway", m.replied_anyway},
             {"crossed", m.crossed},
             {"crashed", m.crashed},
             {"crashed_after_cancels", m.crashed_after_cancels},
             {"exit", {{"exited", m.exit.exited}, {"code", m.exit.code}, {"signal", m.exit.signal}}},
             {"stderr_tail", m.stderr_tail},
             {"later_calls", m.later_calls},
             {"later_failed", m.later_failed},
             {"failure", m.failure},
             {"baseline_failed", m.baseline_failed},
             {"baseline_median_ns", m.baseline_median.count()},
             {"followup_median_ns", m.followup_median.count()},
             {"slower", m.slower},
             {"calls", m.calls}};
}

MCP_LOADTEST_DECL void from_json(const json& j, cancel_moment_report& m) {
    const auto name = j.at("moment").get<std::string>();
    const auto moment = cancel_moment_from_string(name);
    if (!moment) throw std::invalid_argument("cancel_moment_report.moment: \"" + name + "\" is not one of after_send, mid_call, reply_due");
    m.moment = *moment;
    m.attempted = j.at("attempted").get<std::size_t>();
    m.sent = j.at("sent").get<std::size_t>();
    m.reply_first = j.at("reply_first").get<std::size_t>();
    m.honoured = j.at("honoured").get<std::size_t>();
    m.replied_anyway = j.at("replied_anyway").get<std::size_t>();
    m.crossed = j.at("crossed").get<std::size_t>();
    m.crashed = j.at("crashed").get<bool>();
    m.crashed_after_cancels = j.at("crashed_after_cancels").get<std::size_t>();
    const json& e = j.at("exit");
    m.exit.exited = e.at("exited").get<bool>();
    m.exit.code = e.at("code").get<int>();
    m.exit.signal = e.at("signal").get<int>();
    m.stderr_tail = j.at("stderr_tail").get<std::string>();
    m.later_calls = j.at("later_calls").get<std::size_t>();
    m.later_failed = j.at("later_failed").get<std::size_t>();
    m.failure = j.at("failure").get<std::string>();
    m.baseline_failed = j.at("baseline_failed").get<bool>();
    m.baseline_median = std::chrono::nanoseconds(j.at("baseline_median_ns").get<std::int64_t>());
    m.followup_median = std::chrono::nanoseconds(j.at("followup_median_ns").get<std::int64_t>());
    m.slower = j.at("slower").get<bool>();
    m.calls = j.at("calls").get<std::vector<cancelled_call>>();
}

MCP_LOADTEST_DECL void to_json(json& j, const cancellation_report& r) {
    j = json{{"verdict", to_string(r.verdict)},
             {"tool", r.tool},
             {"sent", r.sent},
             {"honoured", r.honoured},
             {"replied_anyway", r.replied_anyway},
             {"crossed", r.crossed},
             {"reply_first", r.reply_first},
             {"crashes", r.crashes},
             {"later_failed", r.later_failed},
             {"inconclusive_reason", r.inconclusive_reason},
             {"took_ns", r.took.count()},
             {"moments", r.moments},
             {"verdict_sentence", r.verdict_sentence()}};
}

MCP_LOADTEST_DECL void from_json(const json& j, cancellation_report& r) {
    const auto name = j.at("verdict").get<std::string>();
    bool known = false;
    for (auto v : {cancellation_verdict::pass, cancellation_verdict::warning, cancellation_verdict::critical,
                   cancellation_verdict::inconclusive})
        if (to_string(v) == name) r.verdict = v, known = true;
    if (!known) throw std::invalid_argument("cancellation_report.verdict: \"" + name + "\" is not one of pass, warning, critical, inconclusive");
    r.tool = j.at("tool").get<std::string>();
    r.sent = j.at("sent").get<std::size_t>();
    r.honoured = j.at("honoured").get<std::size_t>();
    r.replied_anyway = j.at("replied_anyway").get<std::size_t>();
    r.crossed = j.at("crossed").get<std::size_t>();
    r.reply_first = j.at("reply_first").get<std::size_t>();
    r.crashes = j.at("crashes").get<std::size_t>();
    r.later_failed = j.at("later_failed").get<std::size_t>();
    r.inconclusive_reason = j.at("inconclusive_reason").get<std::string>();
    r.took = std::chrono::nanoseconds(j.at("took_ns").get<std::int64_t>());
    r.moments = j.at("moments").get<std::vector<cancel_moment_report>>();
}

MCP_LOADTEST_DECL asio::awaitable<cancellation_report> cancellation_check(any_server server, std::string tool,
                                                               const json& arguments, cancellation_options options,
                                                               client_options client) {
    if (!options.after_send && !options.mid_call && !options.reply_due)
        throw std::invalid_argument("cancellation_check: no moment chosen; set at least one of "
                                    "cancellation_options.after_send, mid_call and reply_due");
    if (options.baseline_calls == 0 || options.cancels_per_moment == 0)
        throw std::invalid_argument("cancellation_check: baseline_calls and cancels_per_moment must be at least 1 "
                                    "(the baseline times the cancels)");
    if (!(options.slower_ratio >= 1.0))
        throw std::invalid_argument("cancellation_check: slower_ratio must be at least 1 (e.g. 3: three times slower)");
    return detail::start_owned(detail::cancellation_job{std::move(server), std::move(client), std::move(tool),
                                                        raw_json::from(arguments), options});
}

MCP_LOADTEST_DECL asio::awaitable<cancellation_report> cancellation_check(any_server server, std::string tool,
                                                               const json& arguments,
                                                               cancellation_options options) {
    return cancellation_check(std::move(server), std::move(tool), arguments, options, client_options{});
}

}  // namespace mcp_loadtest
