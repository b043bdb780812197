// Definitions of detectors/payload_sweep.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detectors/payload_sweep.hpp>

#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/detail/detectors/payload_text.hpp>
#include <mcp_loadtest/detail/text/truncate_for_message.hpp>
#include <mcp_loadtest/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mcp_loadtest {

MCP_LOADTEST_DECL const payload_probe* payload_sweep_report::largest_good() const noexcept {
    const payload_probe* best = nullptr;
    for (const auto& p : probes)
        if (p.good && (!best || p.bytes > best->bytes)) best = &p;
    return best;
}

namespace detail {

MCP_LOADTEST_DECL payload_failure classify_payload_failure(outcome o) noexcept {
    switch (o) {
        case outcome::ok: return payload_failure::none;
        case outcome::hang:
        case outcome::deadlock:
        case outcome::timeout: return payload_failure::hang;
        case outcome::crash: return payload_failure::crash;
        case outcome::malformed: return payload_failure::malformed;
        case outcome::tool_error:
        case outcome::server_error:
        case outcome::protocol_error:
        case outcome::unauthorized:
        case outcome::throttled: return payload_failure::rejected;
        case outcome::disconnected:
        case outcome::cancelled: return payload_failure::disconnected;
    }
    return payload_failure::disconnected;
}

/// What a failure at this size on this transport usually means, and what to do.
MCP_LOADTEST_DECL std::string payload_meaning(const payload_sweep_report& r) {
    const bool http = r.transport == "streamable-http" || r.transport == "http+sse";
    const bool lines = r.transport == "stdio" || r.transport == "tcp" || r.transport == "unix";
    const std::size_t pipe_buffer = 64 * 1024;
    const char* wedged =
        r.answered_after_failure ? "." : "; it is wedged for good (a ping afterwards went unanswered).";
    switch (r.failure) {
        case payload_failure::hang:
            if (r.transport == "stdio" && r.first_bad_bytes <= pipe_buffer)
                return std::string("A stdio server that stops answering below the 64 KiB pipe buffer is stuck in its "
                                   "own stdin loop: a fixed-size read buffer that waits for the rest of a line it "
                                   "never makes room for, or a line-length cap. Read whole lines of any length") +
                       wedged;
            if (r.transport == "stdio")
                return std::string("A stdio server that stops answering past the 64 KiB pipe buffer stops reading its "
                                   "stdin while it writes (or reads one message in one fixed-size read): read and "
                                   "write concurrently, and read whole lines") +
                       wedged;
            if (http)
                return "The HTTP server stops answering requests this large: a body read that waits for more bytes "
                       "than it gets, or a proxy buffering limit; check its request-size settings.";
            return "The server stops answering messages this large: a reader with a size cap that waits instead of "
                   "failing; read whole messages of any length, or reject oversize ones with an error.";
        case payload_failure::rejected:
            if (http && (r.failure_message.find("413") != std::string::npos))
                return "A request-size limit of the HTTP server (HTTP 413: a body-size limit such as express.json()'s "
                       "100 KB default, or a proxy's client_max_body_size): raise it to the largest value the tool "
                       "accepts.";
            return "The server refuses values this large with an error: a deliberate size limit. If it is intended, "
                   "document it and sweep below it (payload_sweep_options::max_bytes).";
        case payload_failure::crash:
            if (r.failure_message.find("exited with code 0") != std::string::npos)
                return "The server exited cleanly on a message this large: its transport closes on a message over "
                       "its size limit (the TypeScript SDK's stdio ReadBuffer does so past 10 MiB, "
                       "STDIO_DEFAULT_MAX_BUFFER_SIZE). Raise the limit (maxBufferSize) if the tools take larger "
                       "values, or answer oversize messages with an error instead of exiting.";
            return "The server process died of a value this large: an unbounded allocation or recursion on the "
                   "input, or a hard limit that aborts; its stderr says more (stderr_to = capture).";
        case payload_failure::disconnected:
            if (r.transport == "websocket")
                return "A message-size limit of the WebSocket server (its max payload or frame size, e.g. Python "
                       "websockets' max_size of 1 MiB): raise it to the largest message the tools accept.";
            if (lines)
                return "The server closes its output on a line this long: a line-length limit in its reader.";
            return "The server drops the connection on a request this large: a body-size limit enforced by closing.";
        case payload_failure::malformed:
            return "The reply to a large request was not valid JSON-RPC: a large reply truncated or interleaved in "
                   "its write, or one over the client's max_message_size (the message says which).";
        case payload_failure::echo_mismatch:
            return "The reply arrived without the payload intact: the server or its transport truncates or corrupts "
                   "large messages.";
        case payload_failure::none: break;
    }
    return "";
}

}  // namespace detail

MCP_LOADTEST_DECL std::string payload_sweep_report::verdict_sentence() const {
    const std::string what = "'" + argument + "' of '" + tool + "' (" + transport + ")";
    if (verdict == payload_verdict::pass) {
        const auto* best = largest_good();
        return "NO PAYLOAD LIMIT: every size of " + what + " up to " + detail::format_bytes(top_bytes) +
               " round-tripped" + (expect_echo ? ", echoed intact" : "") + " (" + std::to_string(probes.size()) +
               " calls; the largest took " + (best ? detail::format_duration(best->duration) : std::string("-")) +
               ").";
    }
    if (verdict == payload_verdict::inconclusive)
        return "INCONCLUSIVE: " + what + " failed even with a " + std::to_string(first_bad_bytes) + "-byte value (" +
               std::string(to_string(failure_outcome)) + ": " + detail::truncate_for_message(failure_message, 300) +
               "), so no size limit can be told apart: check the tool name, the argument name and the base arguments.";
    std::string s = "PAYLOAD LIMIT: " + what + " fails at " + std::to_string(first_bad_bytes) + " bytes (" +
                    std::string(to_string(failure)) + ": " + detail::truncate_for_message(failure_message, 300) +
                    ") while " + std::to_string(last_good_bytes) + " bytes round-tripped (the limit lies in between, " +
                    detail::format_bytes(last_good_bytes) + " to " + detail::format_bytes(first_bad_bytes) +
                    ", after " + std::to_string(bisection_steps) + " bisection steps";
    if (!restart_failure.empty()) s += "; bisection stopped, no new session: " + restart_failure;
    s += "). " + detail::payload_meaning(*this);
    return s;
}

namespace detail {

struct payload_sweep_job {
    any_server server;
    client_options client;
    std::string tool;
    std::string argument;
    std::string base_text;  // the other arguments, as a JSON object
    payload_sweep_options o;
    payload_sweep_report r{};
    std::string payload{};  // max_bytes of text; each probe sends a prefix
    session s{};

    enum class probe_state : std::uint8_t { good, bad, unavailable };

    asio::awaitable<payload_sweep_report> run() {
        const auto t0 = std::chrono::steady_clock::now();
        r.tool = tool;
        r.argument = argument;
        r.transport = transport_name(server);
        r.expect_echo = o.expect_echo;
        r.top_bytes = o.max_bytes;
        payload = payload_text(o.max_bytes);
        s = co_await connect(server, client);
        co_await check_tool();

        std::vector<std::size_t> sizes = payload_ladder(o.min_bytes, o.max_bytes, o.growth);
        if (sizes.front() > baseline_bytes) sizes.insert(sizes.begin(), baseline_bytes);
        bool failed = false;
        for (const std::size_t size : sizes) {
            if ((co_await probe(size, false)) == probe_state::good) {
                r.last_good_bytes = size;
            } else {
                failed = true;
                r.first_bad_bytes = size;
                note_failure(r.probes.back());
                break;
            }
        }
        if (failed && r.last_good_bytes == 0) {
            r.verdict = payload_verdict::inconclusive;
        } else if (failed) {
            r.verdict = payload_verdict::limit_found;
            co_await bisect();
        }
        if (s.valid()) co_await s.close();
        r.took = std::chrono::steady_clock::now() - t0;
        co_return std::move(r);
    }

    static constexpr std::size_t baseline_bytes = 16;

    /// The tool exists, and names the argument when its schema lists properties.
    asio::awaitable<void> check_tool() {
        call_options list_options;
        list_options.timeout = o.timeout;
        const auto tools = co_await s.list_tools(list_options);
        if (!tools.ok()) co_return;  // the calls will show what is wrong
        std::string problem;
        if (const tool_info* t = tools.find(tool); !t) {
            std::string names;
            for (const auto& i : tools) names += (names.empty() ? "" : ", ") + i.name;
            problem = "the server has no tool named '" + tool + "' (tools/list returned: " + names + ")";
        } else if (const auto props = t->input_schema.find("properties");
                   props != t->input_schema.end() && props->is_object() && !props->empty() &&
                   !props->contains(argument)) {
            problem = "the input schema of '" + tool + "' has no property '" + argument + "' (it has: " +
                      truncate_for_message(props->dump(), 200) + "); name the string argument to grow";
        }
        if (problem.empty()) co_return;
        co_await s.close();
        throw std::invalid_argument("payload_sweep: " + problem);
    }

    [[nodiscard]] std::chrono::milliseconds timeout_for(std::size_t bytes) const {
        const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
        return o.timeout + std::chrono::milliseconds(static_cast<std::int64_t>(
                               static_cast<double>(o.timeout_per_mib.count()) * mib));
    }

    /// One call with `bytes` of payload on the current session (a new one if
    /// the last failed); a failure other than an error reply ends the session.
    asio::awaitable<probe_state> probe(std::size_t bytes, bool bisecting) {
        if (!s.valid()) {
            try {
                s = co_await connect(server, client);
                ++r.restarts;
            } catch (const connect_error& e) {
                r.restart_failure = truncate_for_message(e.what(), 300);
            }
            if (!s.valid()) co_return probe_state::unavailable;
        }
        payload_probe p;
        p.bytes = bytes;
        p.bisection = bisecting;
        const std::string_view sent = std::string_view(payload).substr(0, bytes);
        const raw_json args = raw_json::serialized(arguments_with_payload(base_text, argument, sent));
        call_options call;
        call.timeout = timeout_for(bytes);
        p.timeout = call.timeout;
        const std::uint64_t written = s.stats().bytes_written, read = s.stats().bytes_read;
        const call_result c = co_await s.call_tool(tool, args, call);
        p.bytes_sent = s.stats().bytes_written - written;
        p.bytes_received = s.stats().bytes_read - read;
        p.outcome = c.outcome;
        p.duration = c.duration;
        p.http_status = c.http_status;
        p.failure = classify_payload_failure(c.outcome);
        // The call's own hint names call_options; the sweep's timeout is payload_sweep_options::timeout.
        p.message = truncate_for_message(std::string_view(c.message).substr(0, c.message.find(" Hint:")), 500);
        if (p.failure == payload_failure::none && o.expect_echo && c.raw.find(sent) == std::string::npos) {
            p.failure = payload_failure::echo_mismatch;
            p.message = echo_damage(c.raw, sent);
        }
        p.good = p.failure == payload_failure::none;
        if (p.failure == payload_failure::hang && !bisecting) {  // once is evidence enough
            call_options ping;
            ping.timeout = std::chrono::milliseconds(1000);
            const auto pong = co_await s.ping(ping);
            if (!pong.ok()) {
                r.answered_after_failure = false;
                p.message += " [a ping afterwards: " + std::string(to_string(pong.outcome)) + "]";
            }
        }
        // A wedged or dead server is killed (stdio) or disconnected; an error reply leaves it usable.
        if (!p.good && p.failure != payload_failure::rejected) s = session{};
        r.probes.push_back(std::move(p));
        co_return r.probes.back().good ? probe_state::good : probe_state::bad;
    }

    /// How an echo differs from what was sent: where its copy of the payload stops matching.
    static std::string echo_damage(const std::string& reply, std::string_view sent) {
        const std::string_view head = sent.substr(0, std::min<std::size_t>(32, sent.size()));
        const auto at = reply.find(head);
        std::string s = "the reply (" + std::to_string(reply.size()) + " bytes) does not contain the " +
                        std::to_string(sent.size()) + "-byte payload intact";
        if (at == std::string::npos) return s + ": not even its first " + std::to_string(head.size()) + " bytes";
        std::size_t same = 0;
        while (same < sent.size() && at + same < reply.size() && reply[at + same] == sent[same]) ++same;
        return s + ": it matches for the first " + std::to_string(same) + " bytes, then " +
               (at + same >= reply.size() || reply[at + same] == '"' ? "ends (truncated)" : "differs (corrupted)");
    }

    void note_failure(const payload_probe& p) {
        r.failure = p.failure;
        r.failure_outcome = p.outcome;
        r.failure_message = p.message;
    }

    /// Halves [last good, first bad] while steps, time and a new session allow.
    asio::awaitable<void> bisect() {
        const auto deadline = std::chrono::steady_clock::now() + o.bisect_budget;
        while (r.bisection_steps < o.bisect_steps && std::chrono::steady_clock::now() < deadline) {
            const std::size_t width = r.first_bad_bytes - r.last_good_bytes;
            if (width <= std::max<std::size_t>(r.last_good_bytes / 16, 1)) break;  // within ~6%
            const std::size_t mid = r.last_good_bytes + width / 2;
            const probe_state state = co_await probe(mid, true);
            if (state == probe_state::unavailable) break;
            ++r.bisection_steps;
            if (state == probe_state::good) {
                r.last_good_bytes = mid;
            } else {
                r.first_bad_bytes = mid;
                note_failure(r.probes.back());
            }
        }
    }
};

/// The client's own limit on a reply, for the server described.
MCP_LOADTEST_DECL std::size_t client_reply_limit(const any_server& server) {
    return std::visit(
        [](const auto& d) -> std::size_t {
            if constexpr (requires { d.max_message_size; }) return d.max_message_size;
            else return d.limits.max_message_size;
        },
        server);
}

MCP_LOADTEST_DECL void check_payload_options(const any_server& server, const payload_sweep_options& o,
                                  std::string_view argument, std::size_t base_size) {
    if (argument.empty()) throw std::invalid_argument("payload_sweep: name the string argument to grow");
    if (o.min_bytes == 0 || o.max_bytes < o.min_bytes)
        throw std::invalid_argument("payload_sweep: need 0 < min_bytes <= max_bytes (got " +
                                    std::to_string(o.min_bytes) + " and " + std::to_string(o.max_bytes) + ")");
    if (o.max_bytes > o.min_bytes && !(o.growth > 1.0))
        throw std::invalid_argument("payload_sweep: growth must be above 1 (each size that many times the last)");
    if (o.timeout.count() <= 0) throw std::invalid_argument("payload_sweep: timeout must be positive");
    const std::size_t limit = client_reply_limit(server);
    const std::size_t reply = o.max_bytes + base_size + 4096;  // the echo plus its JSON-RPC envelope
    if (o.expect_echo && reply > limit)
        throw std::invalid_argument(
            "payload_sweep: an echo of max_bytes (" + std::to_string(o.max_bytes) +
            " bytes) would exceed this client's own limit on a reply (" + std::to_string(limit) +
            " bytes), so the sweep would measure the client: raise max_message_size (stdio_server) or "
            "limits.max_message_size (network servers) above " + std::to_string(reply) + ", or lower max_bytes");
}

}  // namespace detail

MCP_LOADTEST_DECL asio::awaitable<payload_sweep_report> payload_sweep(any_server server, std::string tool, std::string argument,
                                                           const json& base_arguments, payload_sweep_options options,
                                                           client_options client) {
    std::string base = detail::base_arguments_text(base_arguments, argument);
    detail::check_payload_options(server, options, argument, base.size());
    return detail::start_owned(detail::payload_sweep_job{std::move(server), std::move(client), std::move(tool),
                                                         std::move(argument), std::move(base), options});
}

MCP_LOADTEST_DECL asio::awaitable<payload_sweep_report> payload_sweep(any_server server, std::string tool, std::string argument,
                                                           const json& base_arguments, payload_sweep_options options) {
    return payload_sweep(std::move(server), std::move(tool), std::move(argument), base_arguments, options,
                         client_options{});
}

MCP_LOADTEST_DECL asio::awaitable<payload_sweep_report> payload_sweep(any_server server, std::string tool, std::string argument,
                                                           payload_sweep_options options, client_options client) {
    return payload_sweep(std::move(server), std::move(tool), std::move(argument), json::object(), options,
                         std::move(client));
}

MCP_LOADTEST_DECL asio::awaitable<payload_sweep_report> payload_sweep(any_server server, std::string tool, std::string argument,
                                                           payload_sweep_options options) {
    return payload_sweep(std::move(server), std::move(tool), std::move(argument), json::object(), options,
                         client_options{});
}

namespace detail {
inline constexpr payload_failure all_payload_failures[] = {
    payload_failure::none,      payload_failure::hang,          payload_failure::crash,   payload_failure::disconnected,
    payload_failure::malformed, payload_failure::echo_mismatch, payload_failure::rejected};
inline constexpr payload_verdict all_payload_verdicts[] = {payload_verdict::pass, payload_verdict::limit_found,
                                                           payload_verdict::inconclusive};

template <class Enum, std::size_t N>
Enum payload_enum_from_name(std::string_view name, const Enum (&all)[N], Enum fallback) {
    for (Enum e : all)
        if (to_string(e) == name) return e;
    return fallback;
}
}  // namespace detail

MCP_LOADTEST_DECL void to_json(json& j, const payload_probe& p) {
    j = json{{"bytes", p.bytes},
             {"bisection", p.bisection},
             {"good", p.good},
             {"outcome", to_string(p.outcome)},
             {"failure", to_string(p.failure)},
             {"duration_ns", p.duration.count()},
             {"timeout_ns", p.timeout.count()},
             {"bytes_sent", p.bytes_sent},
             {"bytes_received", p.bytes_received},
             {"http_status", p.http_status},
             {"message", p.message}};
}

MCP_LOADTEST_DECL void from_json(const json& j, payload_probe& p) {
    p.bytes = j.at("bytes").get<std::size_t>();
    p.bisection = j.at("bisection").get<bool>();
    p.good = j.at("good").get<bool>();
    p.outcome = outcome_from_name(j.at("outcome").get<std::string>());
    p.failure = detail::payload_enum_from_name(j.at("failure").get<std::string>(), detail::all_payload_failures,
                                               payload_failure::none);
    p.duration = std::chrono::nanoseconds(j.at("duration_ns").get<std::int64_t>());
    p.timeout = std::chrono::nanoseconds(j.at("timeout_ns").get<std::int64_t>());
    p.bytes_sent = j.at("bytes_sent").get<std::uint64_t>();
    p.bytes_received = j.at("bytes_received").get<std::uint64_t>();
    p.http_status = j.at("http_status").get<std::uint16_t>();
    p.message = j.at("message").get<std::string>();
}

MCP_LOADTEST_DECL void to_json(json& j, const payload_sweep_report& r) {
    j = json{{"verdict", to_string(r.verdict)},
             {"tool", r.tool},
             {"argument", r.argument},
             {"transport", r.transport},
             {"expect_echo", r.expect_echo},
             {"top_bytes", r.top_bytes},
             {"last_good_bytes", r.last_good_bytes},
             {"first_bad_bytes", r.first_bad_bytes},
             {"failure", to_string(r.failure)},
             {"failure_outcome", to_string(r.failure_outcome)},
             {"failure_message", r.failure_message},
             {"answered_after_failure", r.answered_after_failure},
             {"restarts", r.restarts},
             {"restart_failure", r.restart_failure},
             {"bisection_steps", r.bisection_steps},
             {"probes", r.probes},
             {"took_ns", r.took.count()}};
}

MCP_LOADTEST_DECL void from_json(const json& j, payload_sweep_report& r) {
    r.verdict = detail::payload_enum_from_name(j.at("verdict").get<std::string>(), detail::all_payload_verdicts,
                                               payload_verdict::inconclusive);
    r.tool = j.at("tool").get<std::string>();
    r.argument = j.at("argument").get<std::string>();
    r.transport = j.at("transport").get<std::string>();
    r.expect_echo = j.at("expect_echo").get<bool>();
    r.top_bytes = j.at("top_bytes").get<std::size_t>();
    r.last_good_bytes = j.at("last_good_bytes").get<std::size_t>();
    r.first_bad_bytes = j.at("first_bad_bytes").get<std::size_t>();
    r.failure = detail::payload_enum_from_name(j.at("failure").get<std::string>(), detail::all_payload_failures,
                                               payload_failure::none);
    r.failure_outcome = outcome_from_name(j.at("failure_outcome").get<std::string>());
    r.failure_message = j.at("failure_message").get<std::string>();
    r.answered_after_failure = j.at("answered_after_failure").get<bool>();
    r.restarts = j.at("restarts").get<std::size_t>();
    r.restart_failure = j.at("restart_failure").get<std::string>();
    r.bisection_steps = j.at("bisection_steps").get<std::size_t>();
    r.probes = j.at("probes").get<std::vector<payload_probe>>();
    r.took = std::chrono::nanoseconds(j.at("took_ns").get<std::int64_t>());
}

}  // namespace mcp_loadtest
