// Definitions of fuzz.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/fuzz.hpp>

#include <cctype>
#include <string_view>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string describe_expectation(fuzz_expectation e) {
    switch (e) {
        case fuzz_expectation::parse_error: return "error -32700 (Parse error), id null";
        case fuzz_expectation::invalid_request: return "error -32600 (Invalid Request)";
        case fuzz_expectation::method_not_found: return "error -32601 (Method not found)";
        case fuzz_expectation::invalid_params: return "error -32602 (Invalid params) or an isError result";
        case fuzz_expectation::invalid_request_or_params:
            return "error -32600 (Invalid Request) or -32602 (Invalid params), or an isError result";
        case fuzz_expectation::no_reply: return "no reply (a notification or a response)";
        case fuzz_expectation::any_reply: return "any well-formed reply under the input's id";
    }
    return "?";
}

MCP_LOADTEST_DECL fuzz_verdict classify_fuzz_answer(fuzz_expectation expect, const call_result& r, bool wrong_id) {
    switch (r.outcome) {
        case outcome::crash:
        case outcome::disconnected: return fuzz_verdict::crash;
        case outcome::malformed: return fuzz_verdict::malformed;
        case outcome::hang:
        case outcome::deadlock:
        case outcome::timeout:
        case outcome::cancelled:
            if (r.answered() && r.error_code == 0 && expect != fuzz_expectation::no_reply) break;
            if (wrong_id) return fuzz_verdict::wrong_id;
            return expect == fuzz_expectation::no_reply ? fuzz_verdict::ignored : fuzz_verdict::no_reply;
        default: break;
    }
    if (expect == fuzz_expectation::no_reply)
        return r.answered() ? fuzz_verdict::replied_to_notification : fuzz_verdict::ignored;
    // Streamable HTTP: "an HTTP error status code (e.g. 400 Bad Request)" with no body is a valid rejection.
    if (!r.answered() && r.http_status >= 400 && r.http_status < 500) return fuzz_verdict::correct_error;
    if (!r.answered()) return wrong_id ? fuzz_verdict::wrong_id : fuzz_verdict::no_reply;
    if (r.outcome == outcome::tool_error)
        return expect == fuzz_expectation::invalid_params || expect == fuzz_expectation::invalid_request_or_params ||
                       expect == fuzz_expectation::any_reply
                   ? fuzz_verdict::tool_error
                   : fuzz_verdict::wrong_code;
    if (r.outcome == outcome::protocol_error || r.outcome == outcome::server_error)
        return expected_code(expect, r.error_code) ? fuzz_verdict::correct_error : fuzz_verdict::wrong_code;
    return expect == fuzz_expectation::any_reply ? fuzz_verdict::accepted : fuzz_verdict::accepted_invalid;
}

MCP_LOADTEST_DECL bool echoes_invalid_input(std::string_view input, const call_result& r) {
    if (r.outcome != outcome::malformed || r.message.find("surrogate") == std::string::npos) return false;
    const auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
    const auto lower = [](std::string_view s) {
        std::string out(s);
        for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return out;
    };
    const std::string reply = lower(r.raw);
    // Each \uD800..\uDFFF escape of the input that has no partner: found in the reply too?
    for (std::size_t at = input.find("\\u"); at != std::string_view::npos; at = input.find("\\u", at + 2)) {
        if (at + 6 > input.size() || !hex(input[at + 2]) || !hex(input[at + 3]) || !hex(input[at + 4]) ||
            !hex(input[at + 5]))
            continue;
        const auto unit = std::stoul(std::string(input.substr(at + 2, 4)), nullptr, 16);
        const bool high = unit >= 0xD800 && unit <= 0xDBFF, low = unit >= 0xDC00 && unit <= 0xDFFF;
        if (!high && !low) continue;
        const bool paired = high && at + 12 <= input.size() && input.substr(at + 6, 2) == "\\u" && hex(input[at + 8]) &&
                            [&] {
                                const auto next = std::stoul(std::string(input.substr(at + 8, 4)), nullptr, 16);
                                return next >= 0xDC00 && next <= 0xDFFF;
                            }();
        if (paired) {
            at += 6;
            continue;
        }
        if (reply.find(lower(input.substr(at, 6))) != std::string::npos) return true;
    }
    return false;
}

MCP_LOADTEST_DECL std::vector<fuzz_input> interleave_by_category(std::vector<fuzz_input> inputs) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<fuzz_input>> by;
    for (auto& in : inputs) {
        if (!by.count(in.category)) order.push_back(in.category);
        by[in.category].push_back(std::move(in));
    }
    std::vector<fuzz_input> out;
    out.reserve(inputs.size());
    for (std::size_t round = 0;; ++round) {
        bool any = false;
        for (const auto& c : order)
            if (round < by[c].size()) {
                out.push_back(std::move(by[c][round]));
                any = true;
            }
        if (!any) break;
    }
    return out;
}

MCP_LOADTEST_DECL asio::awaitable<void> fuzz_job::restart() {
    if (s) co_await s->close();
    s.reset();
    ++report.restarts;
    s.emplace(co_await connect(server, client));
}

MCP_LOADTEST_DECL std::vector<fuzz_input> fuzz_job::plan(const listing<tool_info>& tools) {
    std::vector<fuzz_input> inputs;
    const tool_info* target = nullptr;
    if (o.tool) target = tools.find(o.tool);
    else if (!tools.empty()) target = &tools[0];
    if (o.envelopes) {
        const std::string name = target ? target->name : std::string(o.tool ? o.tool : "echo");
        const json args = target ? example_arguments(target->input_schema) : json::object();
        auto corpus = envelope_corpus(name, args, next_id);
        next_id += corpus.size() + 16;
        for (auto& in : corpus) inputs.push_back(std::move(in));
    }
    if (o.schema_mutations) {
        for (std::size_t t = 0; t < tools.size() && t < o.max_tools; ++t) {
            for (auto& m : mutate_arguments(tools[t].input_schema, o.seed + t)) {
                fuzz_input in;
                in.category = "schema";
                in.name = tools[t].name + ": " + m.name;
                const std::uint64_t id = next_id++;
                json msg{{"jsonrpc", "2.0"},
                         {"id", id},
                         {"method", "tools/call"},
                         {"params", {{"name", tools[t].name}, {"arguments", m.arguments}}}};
                in.bytes = msg.dump(-1, ' ', false, json::error_handler_t::replace);
                in.expect = m.must_be_rejected ? fuzz_expectation::invalid_params : fuzz_expectation::any_reply;
                in.reply_id = json(id);
                inputs.push_back(std::move(in));
            }
        }
    }
    return interleave_by_category(std::move(inputs));
}

MCP_LOADTEST_DECL asio::awaitable<std::optional<fuzz_finding>> fuzz_job::try_input(const fuzz_input& in) {
    const raw_options ro{.timeout = o.reply_timeout, .quiet = o.quiet};
    const auto unknown_before = count_unknown();
    call_result r;
    if (in.needs_fresh_session) {
        // Before initialize: a connection of its own that never handshakes.
        auto fresh = co_await spawn(server, client);
        r = co_await fresh.send_raw(in.bytes, ro);
        co_await fresh.close();
    } else {
        r = co_await s->send_raw(in.bytes, ro);
    }
    fuzz_verdict v = classify_fuzz_answer(in.expect, r, count_unknown() > unknown_before);
    std::string detail;
    if (v == fuzz_verdict::malformed && echoes_invalid_input(in.bytes, r)) {
        v = fuzz_verdict::echoed_input;
        detail = "the reply repeats the escaped lone surrogate this input sent (" + r.message +
                 "): caused by the fuzzer's own input, not a server bug on its own. A client that rejects "
                 "such JSON fails on it all the same: replacing lone surrogates (U+FFFD) avoids that.";
    }
    if (v != fuzz_verdict::crash) {
        // Every input the server survives must leave the session usable.
        auto alive = co_await s->ping({.timeout = o.reply_timeout});
        if (!alive.ok()) {
            const bool died = alive.outcome == outcome::crash || alive.outcome == outcome::disconnected;
            detail = (died ? "the server died after answering: " : "it no longer answers a ping: ") + alive.describe();
            v = died ? fuzz_verdict::crash : fuzz_verdict::unusable;
        }
    } else {
        detail = r.describe();
    }
    auto& cat = report.categories[in.category];
    ++cat.inputs;
    ++cat.verdicts[std::string(to_string(v))];
    const bool restart_needed = v == fuzz_verdict::crash || v == fuzz_verdict::unusable;
    std::optional<fuzz_finding> f;
    if (severity_of(v) != fuzz_severity::fine) {
        f.emplace();
        f->category = in.category;
        f->name = in.name;
        f->bytes = in.bytes;
        f->verdict = v;
        f->expected = describe_expectation(in.expect);
        f->reply = r.raw.substr(0, 500);
        f->error_code = r.error_code;
        f->detail = detail.empty() && !r.message.empty() ? r.message : detail;
        f->duration = r.duration;
    }
    if (restart_needed) co_await restart();
    co_return f;
}

MCP_LOADTEST_DECL std::uint64_t fuzz_job::count_unknown() const {
    std::uint64_t n = 0;
    for (const auto& v : s->protocol_violations()) n += v.what == protocol_violation::kind::unknown_response;
    return n;
}

MCP_LOADTEST_DECL asio::awaitable<fuzz_report> fuzz_job::run() {
    const auto start = std::chrono::steady_clock::now();
    report.seed = o.seed;
    s.emplace(co_await connect(server, client));
    report.server = describe(server);
    auto tools = co_await s->list_tools();
    const auto inputs = plan(tools);
    report.planned = inputs.size();
    for (const auto& in : inputs) {
        if (report.sent >= o.max_inputs || std::chrono::steady_clock::now() - start >= o.budget) {
            report.budget_exhausted = true;
            break;
        }
        ++report.sent;
        try {
            auto f = co_await try_input(in);
            if (f) report.findings.push_back(std::move(*f));
        } catch (const std::exception& e) {
            // The server could not be restarted (or a fresh connection failed): stop here.
            fuzz_finding f;
            f.category = in.category;
            f.name = in.name + " (campaign stopped)";
            f.bytes = in.bytes;
            f.verdict = fuzz_verdict::crash;
            f.expected = describe_expectation(in.expect);
            f.detail = std::string("the server could not be reached again after this input: ") + e.what();
            report.findings.push_back(std::move(f));
            break;
        }
    }
    if (s) co_await s->close();
    report.elapsed = std::chrono::steady_clock::now() - start;
    co_return std::move(report);
}

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest {

MCP_LOADTEST_DECL asio::awaitable<fuzz_report> fuzz(any_server server, fuzz_options options, client_options client) {
    // A crash finding carries the server's last words: capture a stdio server's
    // stderr unless the test sends it somewhere already.
    if (auto* stdio = std::get_if<stdio_server>(&server); stdio && stdio->stderr_to == stderr_mode::inherit)
        stdio->stderr_to = stderr_mode::capture;
    return detail::start_owned(detail::fuzz_job{std::move(server), std::move(client), options, {}, {}});
}

MCP_LOADTEST_DECL asio::awaitable<fuzz_report> fuzz(any_server server, fuzz_options options) {
    return fuzz(std::move(server), options, client_options{});
}

MCP_LOADTEST_DECL asio::awaitable<fuzz_report> fuzz(any_server server) {
    return fuzz(std::move(server), fuzz_options{}, client_options{});
}

}  // namespace mcp_loadtest
