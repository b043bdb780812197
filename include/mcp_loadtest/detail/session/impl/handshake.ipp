// Definitions of detail/session/handshake.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/session/handshake.hpp>

#include <mcp_loadtest/detail/session/send_request.hpp>
#include <mcp_loadtest/detail/session/session_core.hpp>
#include <mcp_loadtest/detail/text/truncate_for_message.hpp>
#include <mcp_loadtest/network_server.hpp>

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::optional<protocol_era> era_cache::find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex());
    auto it = map().find(key);
    if (it == map().end()) return std::nullopt;
    return it->second;
}

MCP_LOADTEST_DECL void era_cache::store(const std::string& key, protocol_era era) {
    std::lock_guard<std::mutex> lock(mutex());
    map()[key] = era;
}

MCP_LOADTEST_DECL void era_cache::clear() {
    std::lock_guard<std::mutex> lock(mutex());
    map().clear();
}

MCP_LOADTEST_DECL std::map<std::string, protocol_era>& era_cache::map() {
    static std::map<std::string, protocol_era> m;
    return m;
}

MCP_LOADTEST_DECL std::mutex& era_cache::mutex() {
    static std::mutex m;
    return m;
}

MCP_LOADTEST_DECL opening_budget opening_budget::starting_now(std::chrono::milliseconds startup_timeout) {
    return {clock::now() + startup_timeout, startup_timeout, {}};
}

MCP_LOADTEST_DECL std::chrono::milliseconds opening_budget::left() const {
    const auto rest = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now());
    return std::max(rest, std::chrono::milliseconds(1));
}

MCP_LOADTEST_DECL json declared_capabilities(const client_options& o) {
    json capabilities = json::object();
    if (o.declare_roots || !o.roots.empty()) capabilities["roots"] = json{{"listChanged", false}};
    if (o.request_handlers.count("sampling/createMessage")) capabilities["sampling"] = json::object();
    if (o.request_handlers.count("elicitation/create")) capabilities["elicitation"] = json::object();
    if (o.extra_capabilities.is_object()) capabilities.update(o.extra_capabilities);
    return capabilities;
}

MCP_LOADTEST_DECL server_identity identity_from_discover(const json& result, const std::string& version) {
    server_identity id;
    id.era = protocol_era::modern;
    id.protocol_version = version;
    id.raw_result = result;
    if (auto caps = result.find("capabilities"); caps != result.end() && caps->is_object()) id.capabilities = *caps;
    const json* info = nullptr;
    if (auto meta = result.find("_meta"); meta != result.end() && meta->is_object())
        if (auto si = meta->find("io.modelcontextprotocol/serverInfo"); si != meta->end() && si->is_object())
            info = &*si;
    if (!info)
        if (auto si = result.find("serverInfo"); si != result.end() && si->is_object()) info = &*si;
    if (info) {
        id.name = info->value("name", "");
        id.version = info->value("version", "");
    }
    id.instructions = result.value("instructions", "");
    return id;
}

MCP_LOADTEST_DECL std::string stdout_noise_note(const session_core& c) {
    std::size_t lines = 0;
    const protocol_violation* first = nullptr;
    for (const auto& v : c.violations()) {
        using k = protocol_violation::kind;
        if (v.what != k::non_json_line && v.what != k::not_jsonrpc && v.what != k::oversized_message &&
            v.what != k::batch)
            continue;
        ++lines;
        if (!first) first = &v;
    }
    if (!first) return {};
    return " Before that it wrote " + std::to_string(lines) + " line(s) to " +
           (c.wire().kind() == "stdio" ? std::string("stdout") : std::string("the connection")) +
           " that are not JSON-RPC messages (the first: \"" + truncate_for_message(first->sample, 160) +
           "\"): that channel carries the protocol only; write logs and banners to stderr.";
}

MCP_LOADTEST_DECL asio::awaitable<server_identity> initialize_within(session_core& c, opening_budget& budget) {
    c.use_legacy_era();
    const client_options& o = c.options();
    const std::string offered = o.protocol_version.empty() || is_modern_version(o.protocol_version)
                                    ? supported_protocol_versions().back()
                                    : o.protocol_version;
    json capabilities = declared_capabilities(o);
    const json params{{"protocolVersion", offered},
                      {"capabilities", capabilities},
                      {"clientInfo", {{"name", o.client_name}, {"version", o.client_version}}}};
    call_options opts;
    opts.timeout = budget.left();
    call_result r = co_await send_request(c, "initialize", params, opts);
    const std::string who = c.wire().describe();
    if (!r.ok()) {
        std::string why;
        switch (r.outcome) {
            case outcome::hang:
                why = who + " did not answer initialize within " + std::to_string(opts.timeout.count()) +
                      (budget.spent_on.empty()
                           ? std::string(" ms (the server description's startup_timeout)")
                           : " ms, what was left of the server description's startup_timeout (" +
                                 std::to_string(budget.total.count()) + " ms) after " + budget.spent_on) +
                      ". Hint: if it starts slowly, raise startup_timeout; " +
                      (c.wire().kind() == "stdio"
                           ? std::string("check that it reads newline-delimited JSON-RPC on stdin and "
                                         "writes replies to stdout.")
                           : std::string("check that the URL is the server's MCP endpoint.")) +
                      c.wire().unanswered_hint() + c.failure_hint();
                break;
            case outcome::crash:
            case outcome::disconnected:
                if (r.outcome == outcome::crash && c.wire().kind() == "stdio" && c.wire().exit().exited) {
                    why = who + " " + c.wire().exit().describe() + " before answering initialize." + c.failure_hint() +
                          " Hint: run the command by hand to see why it exits.";
                    break;
                }
                why = who + " failed during initialize: " + r.message;
                if (r.message.find("Hint:") == std::string::npos)
                    why += c.wire().kind() == "stdio" ? " Hint: run the command by hand to see why it exits."
                                                      : " Hint: check that the server is running and the URL, "
                                                        "host and port are right.";
                break;
            default: why = who + " rejected initialize: " + r.describe(); break;
        }
        why += stdout_noise_note(c);
        throw connect_error(why, std::move(r));
    }
    server_identity id;
    try {
        id.raw_result = r.result();
        id.protocol_version = id.raw_result.value("protocolVersion", "");
        if (auto caps = id.raw_result.find("capabilities"); caps != id.raw_result.end() && caps->is_object())
            id.capabilities = *caps;
        if (auto info = id.raw_result.find("serverInfo"); info != id.raw_result.end() && info->is_object()) {
            id.name = info->value("name", "");
            id.version = info->value("version", "");
        }
        id.instructions = id.raw_result.value("instructions", "");
    } catch (const std::exception& e) {
        throw connect_error(who + " sent an initialize result this client cannot read: " + e.what(), r);
    }
    const auto& ok = o.accepted_versions;
    if (std::find(ok.begin(), ok.end(), id.protocol_version) == ok.end()) {
        std::string list;
        for (const auto& v : ok) list += (list.empty() ? "" : ", ") + v;
        throw connect_error(who + " chose protocol version \"" + id.protocol_version +
                                "\", which this client does not accept (offered " + offered +
                                "; accepts " + list +
                                "). Hint: pin client_options.protocol_version to one the server supports, "
                                "or add its version to client_options.accepted_versions.",
                            std::move(r));
    }
    c.wire().set_protocol_version(id.protocol_version);
    c.identity = id;
    c.send_notification("notifications/initialized", {});
    auto wire = c.wire().shared_from_this();
    co_await wire->after_handshake();
    co_return id;
}

MCP_LOADTEST_DECL asio::awaitable<modern_probe> probe_modern(session_core& c, bool fall_back, opening_budget& budget) {
    const client_options& o = c.options();
    const std::string who = c.wire().describe();
    std::string version = is_modern_version(o.protocol_version) ? o.protocol_version
                                                                 : supported_modern_versions().back();
    const json capabilities = declared_capabilities(o);
    modern_probe out;
    for (int attempt = 0; attempt < 2; ++attempt) {
        c.use_modern_era(version, capabilities);
        call_options opts;
        opts.timeout = fall_back ? std::max(std::min({o.discover_timeout, budget.total / 2, budget.left()}),
                                            std::chrono::milliseconds(1))
                                 : budget.left();
        opts.cancel_on_timeout = false;
        const auto probe_started = opening_budget::clock::now();
        call_result r = co_await send_request(c, "server/discover", json::object(), opts);
        budget.spent_on = "the era-detection probe (server/discover: " +
                          (r.outcome == outcome::hang ? std::string("no answer") : std::string(to_string(r.outcome))) +
                          " in " +
                          std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                             opening_budget::clock::now() - probe_started)
                                             .count()) +
                          " ms)";
        if (r.ok()) {
            json result;
            try {
                result = r.result();
            } catch (const std::exception&) {
            }
            if (result.is_object() && (result.contains("supportedVersions") || result.contains("resultType"))) {
                out.modern = true;
                out.identity = identity_from_discover(result, version);
                c.identity = out.identity;
                co_return out;
            }
            if (fall_back) break;
            std::string why = who + " answered server/discover with something that is not a DiscoverResult: " +
                              truncate_for_message(r.payload_text(), 300);
            throw connect_error(why, std::move(r));  // the message read before the result moves
        }
        const bool modern_error = r.error_code >= -32022 && r.error_code <= -32020;
        if (r.error_code == -32022) {
            std::vector<std::string> theirs;
            try {
                const json e = r.error();
                if (auto d = e.find("data"); d != e.end() && d->is_object())
                    if (auto sv = d->find("supported"); sv != d->end() && sv->is_array())
                        for (const auto& v : *sv)
                            if (v.is_string()) theirs.push_back(v.get<std::string>());
            } catch (const std::exception&) {
            }
            std::string mutual;
            for (const auto& v : supported_modern_versions())
                if (std::find(theirs.begin(), theirs.end(), v) != theirs.end()) mutual = v;
            if (!mutual.empty() && mutual != version && attempt == 0) {
                version = mutual;
                continue;
            }
            const bool legacy_offered = std::any_of(theirs.begin(), theirs.end(),
                                                    [](const std::string& v) { return !is_modern_version(v); });
            if (fall_back && legacy_offered && mutual.empty()) break;
            std::string list;
            for (const auto& v : theirs) list += (list.empty() ? "" : ", ") + v;
            throw connect_error(who + " does not support protocol version " + version + " (it supports: " +
                                    (list.empty() ? std::string("none listed") : list) +
                                    "). Hint: pin client_options.protocol_version to one both sides support.",
                                std::move(r));
        }
        if (modern_error || (!fall_back)) {
            std::string why = r.describe();
            if (r.outcome == outcome::hang)
                why = "no answer to server/discover within " + std::to_string(opts.timeout.count()) + " ms";
            throw connect_error(who + " did not complete the modern (2026-07-28) opening: " + why +
                                    (modern_error ? ". It speaks the modern era but rejected the request."
                                                  : ". Hint: if it is a legacy server, use "
                                                    "era_selection::legacy or automatic.") +
                                    c.failure_hint(),
                                std::move(r));
        }
        if (r.outcome == outcome::crash || (r.outcome == outcome::disconnected && r.http_status == 0)) {
            // Some legacy stdio servers die on any first message but
            // initialize; a fresh process gets the legacy handshake.
            if (c.wire().kind() == "stdio") {
                out.restart = true;
                break;
            }
            // Named first: the result may be moved into the exception before the message is read.
            std::string why = who + " failed while being probed with server/discover: " + r.message;
            throw connect_error(why, std::move(r));
        }
        break;  // legacy: any other error, or no answer in time
    }
    c.use_legacy_era();
    co_return out;
}

MCP_LOADTEST_DECL asio::awaitable<server_identity> handshake_within(session_core& c, bool may_restart, opening_budget& budget) {
    const client_options& o = c.options();
    era_selection want = o.era;
    if (!o.protocol_version.empty())
        want = is_modern_version(o.protocol_version) ? era_selection::modern : era_selection::legacy;
    if (want == era_selection::legacy) co_return co_await initialize_within(c, budget);
    if (want == era_selection::modern) co_return (co_await probe_modern(c, false, budget)).identity;
    const std::string key = std::string(c.wire().kind()) + " " + c.wire().describe();
    if (auto cached = era_cache::find(key)) {
        if (*cached == protocol_era::legacy) co_return co_await initialize_within(c, budget);
        co_return (co_await probe_modern(c, false, budget)).identity;
    }
    auto probe = co_await probe_modern(c, true, budget);
    if (probe.modern) {
        era_cache::store(key, protocol_era::modern);
        co_return std::move(probe.identity);
    }
    era_cache::store(key, protocol_era::legacy);
    if (probe.restart) {
        if (may_restart) throw restart_needed{};
        throw connect_error(c.wire().describe() + " exited when probed with server/discover, so it cannot be "
                            "given the legacy handshake now. Hint: connect() restarts it automatically; or set "
                            "client_options.era = era_selection::legacy.",
                            call_result{});
    }
    co_return co_await initialize_within(c, budget);
}

MCP_LOADTEST_DECL std::shared_ptr<session_job> sse_fallback(const session_job& job, const connect_error& failure) {
    const auto* http = std::get_if<http_server>(&job.server);
    if (!http || job.options.era != era_selection::automatic || !job.options.protocol_version.empty()) return nullptr;
    const int status = failure.result.http_status;
    if (status != 400 && status != 404 && status != 405) return nullptr;
    sse_server sse;
    sse.url = http->url;
    sse.headers = http->headers;
    sse.bearer_token = http->bearer_token;
    sse.connections = http->connections;
    sse.limits = http->limits;
    auto fallback = std::make_shared<session_job>();
    fallback->server = std::move(sse);
    fallback->options = job.options;
    return fallback;
}

}  // namespace mcp_loadtest::detail
