// Definitions of session.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/session.hpp>

#include <mcp_loadtest/detail/session/handshake.hpp>
#include <mcp_loadtest/detail/wire/jsonrpc_writer.hpp>
#include <mcp_loadtest/detail/transport/make_transport.hpp>
#include <mcp_loadtest/detail/session/send_request.hpp>
#include <mcp_loadtest/process_audit.hpp>

#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace mcp_loadtest {

MCP_LOADTEST_DECL session& session::operator=(session&& o) noexcept {
    if (this != &o) {
        abandon();
        core_ = std::move(o.core_);
    }
    return *this;
}

MCP_LOADTEST_DECL asio::awaitable<call_result> session::call_tool(std::string_view name, const arguments& args,
                                                                   call_options options) {
    auto& c = core();
    auto req = c.take_request();
    detail::fill_tool_call(c, *req, name, args, options);
    return start(std::move(req));
}

MCP_LOADTEST_DECL asio::awaitable<call_result> session::request(std::string_view method, const json& params,
                                                                 call_options options) {
    return request_named(method, params, {}, options);
}

MCP_LOADTEST_DECL asio::awaitable<call_result> session::request(std::string_view method) {
    return request_named(method, json::object(), {}, {});
}

MCP_LOADTEST_DECL asio::awaitable<call_result> session::read_resource(std::string_view uri, call_options options) {
    return request_named("resources/read", json{{"uri", uri}}, std::string(uri), options);
}

MCP_LOADTEST_DECL asio::awaitable<call_result> session::get_prompt(std::string_view name, const json& prompt_arguments,
                                                                    call_options options) {
    return request_named("prompts/get", json{{"name", name}, {"arguments", prompt_arguments}},
                         std::string(name), options);
}

MCP_LOADTEST_DECL asio::awaitable<listing<tool_info>> session::list_tools(call_options options) {
    // A raw pointer: the lambda is a coroutine parameter (GCC 12, see below); the core outlives the call.
    detail::session_core* c = &core();
    return list<tool_info>("tools/list", "tools", options, [c](const json& t) {
        tool_info i;
        i.name = t.value("name", "");
        i.title = t.value("title", "");
        i.description = t.value("description", "");
        if (auto s = t.find("inputSchema"); s != t.end()) i.input_schema = *s;
        i.raw = t;
        c->learn_param_headers(i.name, i.input_schema);
        return i;
    });
}

MCP_LOADTEST_DECL asio::awaitable<listing<resource_info>> session::list_resources(call_options options) {
    return list<resource_info>("resources/list", "resources", options, [](const json& r) {
        resource_info i;
        i.uri = r.value("uri", "");
        i.name = r.value("name", "");
        i.mime_type = r.value("mimeType", "");
        i.raw = r;
        return i;
    });
}

MCP_LOADTEST_DECL asio::awaitable<listing<prompt_info>> session::list_prompts(call_options options) {
    return list<prompt_info>("prompts/list", "prompts", options, [](const json& p) {
        prompt_info i;
        i.name = p.value("name", "");
        i.description = p.value("description", "");
        i.raw = p;
        return i;
    });
}

MCP_LOADTEST_DECL void session::notify(std::string_view method, const json& params) {
    const std::string text = params.is_null() ? std::string() : params.dump();
    core().send_notification(method, text);
}

MCP_LOADTEST_DECL asio::awaitable<call_result> session::send_raw(std::string_view bytes, raw_options options) {
    auto req = core().take_request();
    *req = core().prepare_raw(bytes, options.timeout, options.quiet);
    return start(std::move(req));
}

MCP_LOADTEST_DECL bool session::cancel(std::uint64_t request_id, std::string_view reason) {
    return core().cancel(request_id, reason, true);
}

MCP_LOADTEST_DECL asio::awaitable<server_identity> session::initialize() {
    auto budget = detail::opening_budget::starting_now(core().wire().startup_timeout());
    co_return co_await detail::initialize_within(core(), budget);
}

MCP_LOADTEST_DECL asio::awaitable<server_identity> session::discover() {
    auto budget = detail::opening_budget::starting_now(core().wire().startup_timeout());
    auto outcome_of = co_await detail::probe_modern(core(), false, budget);
    co_return std::move(outcome_of.identity);
}

MCP_LOADTEST_DECL asio::awaitable<server_identity> session::handshake() {
    auto budget = detail::opening_budget::starting_now(core().wire().startup_timeout());
    co_return co_await detail::handshake_within(core(), false, budget);
}

MCP_LOADTEST_DECL asio::awaitable<shutdown_result> session::close() {
    if (!core_) co_return shutdown_result{};
    auto keep = core_;
    co_return co_await keep->close();
}

MCP_LOADTEST_DECL const std::vector<protocol_violation>& session::protocol_violations() const {
    return core().violations();
}

MCP_LOADTEST_DECL const std::vector<schema_violation>& session::schema_violations() const {
    return core().schema_violations();
}

MCP_LOADTEST_DECL std::string session::stderr_tail(std::size_t max_bytes) const {
    return core().stderr_tail(max_bytes);
}

MCP_LOADTEST_DECL detail::session_core& session::core() const {
    if (!core_)
        throw std::logic_error("mcp_loadtest::session used after being moved from or default-constructed; "
                               "obtain one from co_await connect(server)");
    return *core_;
}

MCP_LOADTEST_DECL void session::abandon() noexcept {
    if (core_) core_->abort_now();
    core_.reset();
}

MCP_LOADTEST_DECL recorded_session session::recorded() const {
    recorded_session r = core().recorded();
    r.index = 1;
    return r;
}

MCP_LOADTEST_DECL asio::awaitable<call_result> session::request_named(std::string_view method, const json& params, std::string tool,
                                                                       call_options options) {
    return detail::send_request(core(), method, params, std::move(tool), options);
}

MCP_LOADTEST_DECL asio::awaitable<call_result> session::start(detail::session_core::request_box req) {
    return detail::start_request(core_, std::move(req));
}

}  // namespace mcp_loadtest

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL asio::awaitable<session> spawn_session(std::shared_ptr<session_job> job) {
    auto ex = co_await asio::this_coro::executor;
    std::string transport, server;
    if (job->options.record) {
        transport = transport_name(job->server);
        server = describe(job->server);  // without credentials
    }
    auto wire = make_transport(ex, std::move(job->server));
    auto core = std::make_shared<session_core>(ex, std::move(wire), std::move(job->options));
    core->label_recording(std::move(transport), std::move(server));
    co_await core->open();
    co_return session(std::move(core));
}

MCP_LOADTEST_DECL asio::awaitable<server_identity> session_opener::handshake(session& s, opening_budget& budget) {
    return handshake_within(s.core(), true, budget);
}

MCP_LOADTEST_DECL asio::awaitable<server_identity> session_opener::initialize(session& s, opening_budget& budget) {
    return initialize_within(s.core(), budget);
}

MCP_LOADTEST_DECL asio::awaitable<session> connect_session(std::shared_ptr<session_job> job) {
    auto again = std::make_shared<session_job>(*job);
    session s = co_await spawn_session(std::move(job));
    // A fallback continues the first attempt's budget.
    opening_budget budget = again->budget ? *again->budget
                                          : opening_budget::starting_now(session_opener::startup_timeout(s));
    bool restart = false;
    std::shared_ptr<session_job> fallback;
    std::string first_failure;
    try {
        co_await session_opener::handshake(s, budget);
    } catch (const restart_needed&) {
        restart = true;
    } catch (const connect_error& e) {
        fallback = sse_fallback(*again, e);
        if (!fallback) throw;
        first_failure = e.what();
    }
    if (fallback) {
        co_await s.close();
        fallback->budget = budget;
        try {
            co_return co_await connect_session(std::move(fallback));
        } catch (const connect_error& e) {
            throw connect_error(first_failure + " Falling back to legacy HTTP+SSE at the same URL failed too: " +
                                    e.what(),
                                e.result);
        }
    }
    if (restart) {
        co_await s.close();
        s = co_await spawn_session(std::move(again));
        budget.spent_on += " and a restart of the server, which exited when probed";
        co_await session_opener::initialize(s, budget);
    }
    // Helpers a server starts at once (a daemon, a browser) may leave its
    // process group: note them now, while the server lives (process_audit).
    if (s.pid() > 0) process_audit::note_descendants(s.pid());
    co_return s;
}

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest {

MCP_LOADTEST_DECL void forget_detected_eras() { detail::era_cache::clear(); }

MCP_LOADTEST_DECL asio::awaitable<session> spawn(any_server server, client_options options) {
    return detail::spawn_session(std::make_shared<detail::session_job>(std::move(server), std::move(options)));
}

MCP_LOADTEST_DECL asio::awaitable<session> spawn(any_server server) {
    return spawn(std::move(server), client_options{});
}

MCP_LOADTEST_DECL asio::awaitable<session> connect(any_server server, client_options options) {
    return detail::connect_session(std::make_shared<detail::session_job>(std::move(server), std::move(options)));
}

MCP_LOADTEST_DECL asio::awaitable<session> connect(any_server server) {
    return connect(std::move(server), client_options{});
}

}  // namespace mcp_loadtest
