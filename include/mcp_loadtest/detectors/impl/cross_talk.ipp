// Definitions of detectors/cross_talk.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detectors/cross_talk.hpp>

#include <mcp_loadtest/combinators.hpp>
#include <mcp_loadtest/detail/detectors/cross_talk_attribution.hpp>
#include <mcp_loadtest/detail/text/truncate_for_message.hpp>
#include <mcp_loadtest/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::string cross_talk_report::verdict_sentence() const {
    const std::string of_n = " of " + std::to_string(calls) + " concurrent replies to '" + tool + "'";
    switch (verdict) {
        case cross_talk_verdict::cross_talk: {
            std::string s = "CROSS-TALK: " + std::to_string(mismatches.size()) + of_n;
            s += attributed > 0 ? " carried another request's data (" : " did not match their own request (";
            for (std::size_t i = 0; i < mismatches.size() && i < 3; ++i) {
                const auto& m = mismatches[i];
                if (i > 0) s += "; ";
                s += "request " + std::to_string(m.index) + " " + m.arguments.dump();
                s += m.carries_data_of ? ": reply " + m.evidence : " got " + detail::truncate_for_message(m.reply, 120);
            }
            if (mismatches.size() > 3) s += "; ...";
            s += "): state of one request leaks into another's reply, so per-request state is shared between "
                 "concurrent requests without isolation; look for module-level or global variables (or a shared "
                 "client object) written per request and keep that state per call.";
            return s;
        }
        case cross_talk_verdict::indeterminate:
            return "INDETERMINATE (no cross-talk verdict): " + reason;
        case cross_talk_verdict::isolated:
            break;
    }
    return "no cross-talk: all " + std::to_string(matched) + of_n + " matched their own request (checked by " +
           checked_by + ", " + std::to_string(sessions) + (sessions == 1 ? " session)." : " sessions).");
}

MCP_LOADTEST_DECL void to_json(json& j, const cross_talk_mismatch& m) {
    j = json{{"index", m.index},       {"session", m.session},   {"request_id", m.request_id},
             {"arguments", m.arguments}, {"reply", m.reply},     {"expected", m.expected},
             {"carries_data_of", m.carries_data_of ? json(*m.carries_data_of) : json(nullptr)},
             {"evidence", m.evidence}};
}

MCP_LOADTEST_DECL void from_json(const json& j, cross_talk_mismatch& m) {
    m.index = j.at("index").get<std::size_t>();
    m.session = j.at("session").get<std::size_t>();
    m.request_id = j.at("request_id").get<std::uint64_t>();
    m.arguments = j.at("arguments");
    m.reply = j.at("reply").get<std::string>();
    m.expected = j.at("expected").get<std::string>();
    const auto& c = j.at("carries_data_of");
    m.carries_data_of = c.is_null() ? std::nullopt : std::optional<std::size_t>(c.get<std::size_t>());
    m.evidence = j.at("evidence").get<std::string>();
}

MCP_LOADTEST_DECL void to_json(json& j, const cross_talk_irreproducible& x) {
    j = json{{"index", x.index}, {"arguments", x.arguments}, {"first_reply", x.first_reply}, {"second_reply", x.second_reply}};
}

MCP_LOADTEST_DECL void from_json(const json& j, cross_talk_irreproducible& x) {
    x.index = j.at("index").get<std::size_t>();
    x.arguments = j.at("arguments");
    x.first_reply = j.at("first_reply").get<std::string>();
    x.second_reply = j.at("second_reply").get<std::string>();
}

MCP_LOADTEST_DECL void to_json(json& j, const cross_talk_failure& f) {
    j = json{{"index", f.index}, {"request_id", f.request_id}, {"outcome", to_string(f.outcome)}, {"description", f.description}};
}

MCP_LOADTEST_DECL void from_json(const json& j, cross_talk_failure& f) {
    f.index = j.at("index").get<std::size_t>();
    f.request_id = j.at("request_id").get<std::uint64_t>();
    f.outcome = outcome_from_name(j.at("outcome").get<std::string>());
    f.description = j.at("description").get<std::string>();
}

MCP_LOADTEST_DECL void to_json(json& j, const cross_talk_report& r) {
    j = json{{"verdict", to_string(r.verdict)},
             {"tool", r.tool},
             {"checked_by", r.checked_by},
             {"calls", r.calls},
             {"sessions", r.sessions},
             {"matched", r.matched},
             {"oracle_calls", r.oracle_calls},
             {"reproducibility_checks", r.reproducibility_checks},
             {"mismatches", r.mismatches},
             {"attributed", r.attributed},
             {"irreproducible", r.irreproducible},
             {"failures", r.failures},
             {"reason", r.reason},
             {"write_spread_ns", r.write_spread.count()},
             {"oracle_took_ns", r.oracle_took.count()},
             {"concurrent_took_ns", r.concurrent_took.count()},
             {"took_ns", r.took.count()},
             {"verdict_sentence", r.verdict_sentence()}};
}

MCP_LOADTEST_DECL void from_json(const json& j, cross_talk_report& r) {
    const auto v = j.at("verdict").get<std::string>();
    r.verdict = v == "cross_talk"      ? cross_talk_verdict::cross_talk
                : v == "indeterminate" ? cross_talk_verdict::indeterminate
                                       : cross_talk_verdict::isolated;
    r.tool = j.at("tool").get<std::string>();
    r.checked_by = j.at("checked_by").get<std::string>();
    r.calls = j.at("calls").get<std::size_t>();
    r.sessions = j.at("sessions").get<std::size_t>();
    r.matched = j.at("matched").get<std::size_t>();
    r.oracle_calls = j.at("oracle_calls").get<std::size_t>();
    r.reproducibility_checks = j.at("reproducibility_checks").get<std::size_t>();
    r.mismatches = j.at("mismatches").get<std::vector<cross_talk_mismatch>>();
    r.attributed = j.at("attributed").get<std::size_t>();
    r.irreproducible = j.at("irreproducible").get<std::vector<cross_talk_irreproducible>>();
    r.failures = j.at("failures").get<std::vector<cross_talk_failure>>();
    r.reason = j.at("reason").get<std::string>();
    r.write_spread = std::chrono::nanoseconds(j.at("write_spread_ns").get<std::int64_t>());
    r.oracle_took = std::chrono::nanoseconds(j.at("oracle_took_ns").get<std::int64_t>());
    r.concurrent_took = std::chrono::nanoseconds(j.at("concurrent_took_ns").get<std::int64_t>());
    r.took = std::chrono::nanoseconds(j.at("took_ns").get<std::int64_t>());
}

namespace detail {

/// ok or tool_error: a result that can be compared.
MCP_LOADTEST_DECL bool cross_talk_comparable(const call_result& c) noexcept {
    return c.outcome == outcome::ok || c.outcome == outcome::tool_error;
}

MCP_LOADTEST_DECL std::string cross_talk_reply_text(const call_result& c) {
    return c.answered() ? truncate_for_message(c.payload_text(), 2000) : c.describe();
}

struct cross_talk_job {
    any_server server;
    client_options client;
    std::string tool;
    std::vector<json> arguments;
    std::vector<raw_json> wire;  // the arguments serialized once; referenced by the calls
    cross_talk_predicate_fn predicate;  // empty: the sequential oracle
    cross_talk_options o;
    std::vector<std::string> ignore;
    std::vector<std::string> oracle_keys;  // canonical sequential reply per request
    std::vector<std::string> oracle_texts;
    cross_talk_report r{};

    asio::awaitable<cross_talk_report> run() {
        const auto t0 = std::chrono::steady_clock::now();
        r.tool = tool;
        r.calls = arguments.size();
        r.sessions = o.sessions;
        r.checked_by = predicate ? "predicate" : "sequential oracle";
        auto sessions = co_await open_sessions(server, o.sessions, client);
        const auto opened = std::chrono::steady_clock::now();
        const bool judgeable = predicate ? true : co_await sequential_oracle(sessions);
        const auto t1 = std::chrono::steady_clock::now();
        r.oracle_took = t1 - opened;
        if (judgeable) {
            std::vector<asio::awaitable<call_result>> armed;  // created, nothing sent yet
            for (std::size_t i = 0; i < arguments.size(); ++i)
                armed.push_back(sessions[i % sessions.size()].call_tool(tool, wire[i], o.call));
            auto burst = co_await release_together(std::move(armed));
            r.write_spread = burst.write_spread;
            r.concurrent_took = std::chrono::steady_clock::now() - t1;
            judge(burst.results);
        }
        co_await close_sessions(sessions);
        r.took = std::chrono::steady_clock::now() - t0;
        co_return std::move(r);
    }

    /// Each call alone, one at a time, then a spread sample again: false (and
    /// the verdict indeterminate) when the replies cannot serve as an oracle.
    asio::awaitable<bool> sequential_oracle(std::vector<session>& sessions) {
        for (std::size_t i = 0; i < arguments.size(); ++i) {
            const auto c = co_await sessions[i % sessions.size()].call_tool(tool, wire[i], o.call);
            ++r.oracle_calls;
            if (!cross_talk_comparable(c)) {
                indeterminate("the call for request " + std::to_string(i) + " " + arguments[i].dump() +
                              ", made alone, did not succeed (" + c.describe() +
                              "), so there is no sequential reply to compare with; check the tool name and the "
                              "generator's arguments (the call must work on its own).");
                co_return false;
            }
            oracle_keys.push_back(canonical_response(c, ignore));
            oracle_texts.push_back(cross_talk_reply_text(c));
        }
        const std::size_t checks = std::min(o.reproducibility_checks, arguments.size());
        for (std::size_t s = 0; s < checks; ++s) {
            const std::size_t i = s * arguments.size() / checks;
            const auto c = co_await sessions[i % sessions.size()].call_tool(tool, wire[i], o.call);
            ++r.oracle_calls;
            ++r.reproducibility_checks;
            note_repeat(i, c);
        }
        if (r.irreproducible.empty()) co_return true;
        const auto& x = r.irreproducible.front();
        indeterminate(std::to_string(r.irreproducible.size()) + " of " + std::to_string(checks) +
                      " identical sequential calls to '" + tool + "' replied differently the second time (request " +
                      std::to_string(x.index) + " " + x.arguments.dump() + ": " + truncate_for_message(x.first_reply, 120) +
                      " then " + truncate_for_message(x.second_reply, 120) +
                      "), so its replies legitimately vary and a sequential oracle cannot judge them; remove the varying "
                      "members with cross_talk_options::ignore_paths, or pass a predicate that checks each reply "
                      "against its own arguments.");
        co_return false;
    }

    /// A repeated sequential call: recorded when it does not reproduce the first.
    void note_repeat(std::size_t i, const call_result& c) {
        if (cross_talk_comparable(c) && canonical_response(c, ignore) == oracle_keys[i]) return;
        r.irreproducible.push_back({i, arguments[i], oracle_texts[i], cross_talk_reply_text(c)});
    }

    void indeterminate(std::string why) {
        r.verdict = cross_talk_verdict::indeterminate;
        r.reason = std::move(why);
    }

    void judge(const std::vector<call_result>& replies) {
        const auto strings = distinctive_strings(arguments);
        for (std::size_t i = 0; i < replies.size(); ++i) {
            const call_result& c = replies[i];
            if (!cross_talk_comparable(c)) {
                r.failures.push_back({i, c.request_id, c.outcome, c.describe()});
                continue;
            }
            const std::string key = predicate ? std::string() : canonical_response(c, ignore);
            if (predicate ? predicate(arguments[i], c) : key == oracle_keys[i]) {
                ++r.matched;
                continue;
            }
            cross_talk_mismatch m;
            m.index = i;
            m.session = i % o.sessions;
            m.request_id = c.request_id;
            m.arguments = arguments[i];
            m.reply = cross_talk_reply_text(c);
            if (!predicate) m.expected = oracle_texts[i];
            attribute(m, key, c, strings);
            if (m.carries_data_of) ++r.attributed;
            r.mismatches.push_back(std::move(m));
        }
        if (!r.mismatches.empty()) {
            r.verdict = cross_talk_verdict::cross_talk;
        } else if (!r.failures.empty()) {
            const auto& f = r.failures.front();
            indeterminate(std::to_string(r.failures.size()) + " of " + std::to_string(replies.size()) +
                          " concurrent calls to '" + tool + "' got no result to compare (request " +
                          std::to_string(f.index) + ": " + f.description + "), and the " + std::to_string(r.matched) +
                          " that did matched their own request; cross-talk cannot be ruled out for the others: "
                          "run the deadlock probe to tell hangs and crashes apart, or lower calls.");
        }
    }

    /// Whose data: a reply equal to another request's sequential reply (when
    /// that differs from this one's), else another request's distinctive
    /// argument string in the reply.
    void attribute(cross_talk_mismatch& m, const std::string& key, const call_result& c,
                   const std::vector<argument_strings>& strings) const {
        if (!predicate) {
            for (std::size_t j = 0; j < oracle_keys.size(); ++j) {
                if (j == m.index || oracle_keys[j] != key || oracle_keys[j] == oracle_keys[m.index]) continue;
                m.carries_data_of = j;
                m.evidence = "equals request " + std::to_string(j) + "'s sequential reply";
                return;
            }
        }
        if (auto found = find_carried_strings(m.index, c.payload_text(), strings)) {
            m.carries_data_of = found->request;
            m.evidence = "contains request " + std::to_string(found->request) + "'s argument \"" + found->value + "\"";
        }
    }
};

MCP_LOADTEST_DECL asio::awaitable<cross_talk_report> start_cross_talk(any_server server, std::string tool,
                                                           const std::function<json(std::size_t)>& generator,
                                                           cross_talk_predicate_fn predicate,
                                                           const cross_talk_options& options, client_options client) {
    if (options.calls < 2 || options.sessions == 0)
        throw std::invalid_argument("cross_talk_check: calls must be at least 2 and sessions at least 1 (got calls " +
                                    std::to_string(options.calls) + ", sessions " + std::to_string(options.sessions) +
                                    ")");
    cross_talk_job job;
    job.server = std::move(server);
    job.client = std::move(client);
    job.tool = std::move(tool);
    job.predicate = std::move(predicate);
    job.o = options;
    job.ignore.assign(options.ignore_paths.begin(), options.ignore_paths.end());
    for (std::size_t i = 0; i < options.calls; ++i) {
        json a = generator(i);
        if (a.is_null()) a = json::object();
        if (!a.is_object())
            throw std::invalid_argument("cross_talk_check: the generator returned " + a.dump() + " for request " +
                                        std::to_string(i) + "; it must return the tool's arguments as a JSON object");
        job.wire.push_back(raw_json::from(a));
        job.arguments.push_back(std::move(a));
    }
    return start_owned(std::move(job));
}

}  // namespace detail

}  // namespace mcp_loadtest
