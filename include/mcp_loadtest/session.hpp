// An MCP client session with one server, driven with co_await.
//
//     const mcp_loadtest::stdio_server server{"python3", {"server.py"}};
//     auto s = co_await mcp_loadtest::connect(server);
//     auto reply = co_await s.call_tool("echo", mcp_loadtest::args("message", "hi"), {.timeout = 5s});
//
// Every operation is bounded (per-call timeout, optional session deadline) and
// ends in exactly one outcome of the taxonomy (outcome.hpp). Any number of calls
// may be in flight at once on one session: they are pipelined on one pipe and
// correlated by id. A session is used from the executor it was created on.
//
// This header brings the stdio transport only: a network server description
// also needs its transport's header (mcp_loadtest/http.hpp, websocket.hpp or
// socket.hpp; network.hpp for all), so a stdio test compiles no network code.
// The opening and the protocol eras are detail/handshake.hpp; every JSON-RPC
// line is written by detail/jsonrpc_writer.hpp.
#pragma once

#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/client_options.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/handshake.hpp>
#include <mcp_loadtest/detail/jsonrpc_writer.hpp>
#include <mcp_loadtest/detail/make_transport.hpp>
#include <mcp_loadtest/detail/send_request.hpp>
#include <mcp_loadtest/detail/session_core.hpp>
#include <mcp_loadtest/detail/transport_registry.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/process_audit.hpp>
#include <mcp_loadtest/process_status.hpp>
#include <mcp_loadtest/server.hpp>
#include <mcp_loadtest/session_info.hpp>

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest {

namespace detail {
struct session_opener;
}  // namespace detail

struct tool_info {
    std::string name;
    std::string title;
    std::string description;
    json input_schema = json::object();
    json raw = json::object();  ///< the tool object as the server sent it
};

struct resource_info {
    std::string uri;
    std::string name;
    std::string mime_type;
    json raw = json::object();
};

struct prompt_info {
    std::string name;
    std::string description;
    json raw = json::object();
};

/// A paginated list, with every page fetched. `status` is the last page's call
/// (the failing one, if a page failed; the items fetched before it are kept).
template <class Item>
struct listing {
    std::vector<Item> items;
    std::size_t pages = 0;
    call_result status;

    [[nodiscard]] bool ok() const noexcept { return status.ok(); }
    [[nodiscard]] std::size_t size() const noexcept { return items.size(); }
    [[nodiscard]] bool empty() const noexcept { return items.empty(); }
    [[nodiscard]] auto begin() const noexcept { return items.begin(); }
    [[nodiscard]] auto end() const noexcept { return items.end(); }
    [[nodiscard]] const Item& operator[](std::size_t i) const { return items[i]; }
    /// The item with this name (tools, prompts) or uri (resources), or nullptr.
    [[nodiscard]] const Item* find(std::string_view key) const noexcept {
        for (const auto& i : items) {
            if constexpr (requires { i.uri; }) {
                if (i.uri == key) return &i;
            } else {
                if (i.name == key) return &i;
            }
        }
        return nullptr;
    }
};

class session {
public:
    session() = default;
    explicit session(std::shared_ptr<detail::session_core> core) : core_(std::move(core)) {}
    session(session&&) noexcept = default;
    session& operator=(session&& o) noexcept {
        if (this != &o) {
            abandon();
            core_ = std::move(o.core_);
        }
        return *this;
    }
    session(const session&) = delete;
    session& operator=(const session&) = delete;
    /// Without close(), the server's process group is SIGKILLed and reaped here.
    ~session() { abandon(); }

    // ---- requests --------------------------------------------------------

    /// tools/call. Ends in ok, tool_error (isError: true) or a failure outcome.
    /// `args`: a json object, `{{"key", value}}`, or raw_json serialized once.
    asio::awaitable<call_result> call_tool(std::string_view name, const arguments& args,
                                           call_options options = {}) {
        auto& c = core();
        if (c.strict()) c.check_arguments(name, args.text());
        detail::session_core::request_line req;
        req.id = c.next_id();
        req.line = c.take_line_buffer();
        req.method.assign("tools/call");
        req.tool.assign(name);
        req.options = options;
        const bool modern = c.era() == protocol_era::modern;
        detail::request_meta meta;
        meta.modern_members = modern ? &c.meta_members() : nullptr;
        meta.progress = options.progress;
        req.params_members_at = detail::write_tool_call(req.line, req.id, name, args.text(), meta);
        if (modern) c.param_headers_for(name, args.text(), req.param_headers);
        return start(std::move(req));
    }

    /// tools/call with no arguments (`{}`).
    asio::awaitable<call_result> call_tool(std::string_view name) { return call_tool(name, arguments{}, {}); }

    /// Any request by method name, e.g. request("completion/complete", params).
    asio::awaitable<call_result> request(std::string_view method, const json& params,
                                         call_options options = {}) {
        return request_named(method, params, {}, options);
    }
    asio::awaitable<call_result> request(std::string_view method) {
        return request_named(method, json::object(), {}, {});
    }

    asio::awaitable<call_result> ping(call_options options = {}) { return request_named("ping", json::object(), {}, options); }

    asio::awaitable<call_result> read_resource(std::string_view uri, call_options options = {}) {
        return request_named("resources/read", json{{"uri", uri}}, std::string(uri), options);
    }

    asio::awaitable<call_result> get_prompt(std::string_view name, const json& prompt_arguments,
                                            call_options options = {}) {
        return request_named("prompts/get", json{{"name", name}, {"arguments", prompt_arguments}},
                             std::string(name), options);
    }
    asio::awaitable<call_result> get_prompt(std::string_view name) { return get_prompt(name, json::object()); }

    /// tools/list, following nextCursor through every page.
    asio::awaitable<listing<tool_info>> list_tools(call_options options = {}) {
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

    asio::awaitable<listing<resource_info>> list_resources(call_options options = {}) {
        return list<resource_info>("resources/list", "resources", options, [](const json& r) {
            resource_info i;
            i.uri = r.value("uri", "");
            i.name = r.value("name", "");
            i.mime_type = r.value("mimeType", "");
            i.raw = r;
            return i;
        });
    }

    asio::awaitable<listing<prompt_info>> list_prompts(call_options options = {}) {
        return list<prompt_info>("prompts/list", "prompts", options, [](const json& p) {
            prompt_info i;
            i.name = p.value("name", "");
            i.description = p.value("description", "");
            i.raw = p;
            return i;
        });
    }

    /// Sends a notification (fire and forget).
    void notify(std::string_view method, const json& params) {
        const std::string text = params.is_null() ? std::string() : params.dump();
        core().send_notification(method, text);
    }
    void notify(std::string_view method) { core().send_notification(method, {}); }

    /// Writes `bytes` as one message, exactly as given (a line on stdio, TCP
    /// and Unix sockets, which add the newline; a POST body on HTTP; a text
    /// frame on WebSocket), and awaits what answers it, with the same bounds
    /// and taxonomy as a call: `ok` with the reply in `raw` (a JSON-RPC error
    /// reply ends as protocol_error or server_error with its error_code, as a
    /// call's does), `hang` when a reply was due and none came, `crash` when
    /// the server died of it, `malformed` when it answered with something that
    /// is not JSON-RPC. A message that expects no reply ends `ok` with nothing
    /// in `raw` after raw_options::quiet, or `protocol_error` if answered.
    /// Replies with the raw message's own id or id null are its answer; a
    /// second one is a `duplicate_reply` violation. Use ids the session does
    /// not (it counts up from 1): e.g. 1000000000 and up. One at a time.
    asio::awaitable<call_result> send_raw(std::string_view bytes, raw_options options = {}) {
        return start(core().prepare_raw(bytes, options.timeout, options.quiet));
    }

    /// Cancels an in-flight request: it ends as `cancelled`, and the server is
    /// sent notifications/cancelled. Returns false if it was not in flight.
    /// (Cancelling the awaiting coroutine through Asio's cancellation slots
    /// does the same.)
    bool cancel(std::uint64_t request_id, std::string_view reason = "cancelled by the test") {
        return core().cancel(request_id, reason, true);
    }

    /// The id the most recent request was given.
    [[nodiscard]] std::uint64_t last_request_id() const noexcept { return core_ ? peek_last_id() : 0; }

    // ---- lifecycle -------------------------------------------------------

    /// The initialize handshake: offers the newest version (or the pinned one),
    /// accepts what the server picks among accepted_versions, then sends
    /// notifications/initialized. Throws connect_error, with a message saying
    /// what went wrong and what to try, when it fails.
    asio::awaitable<server_identity> initialize() {
        auto budget = detail::opening_budget::starting_now(core().wire().startup_timeout());
        co_return co_await detail::initialize_within(core(), budget);
    }

    /// The modern (2026-07-28) opening: server/discover carrying the per-request
    /// _meta. An UnsupportedProtocolVersionError (-32022) is answered by
    /// retrying once with a mutually supported version. Throws connect_error.
    asio::awaitable<server_identity> discover() {
        auto budget = detail::opening_budget::starting_now(core().wire().startup_timeout());
        auto outcome_of = co_await detail::probe_modern(core(), false, budget);
        co_return std::move(outcome_of.identity);
    }

    /// Opens the session in the era client_options::era asks for. `automatic`
    /// follows the spec's backward-compatibility rules: probe with
    /// server/discover; a DiscoverResult or a modern error (-32020..-32022)
    /// means modern; anything else (another error, no answer within
    /// discover_timeout, an HTTP 4xx without a modern error) means legacy, and
    /// the initialize handshake follows. startup_timeout bounds the whole
    /// opening: the probe gets at most half of it. The verdict is cached per
    /// server for the life of the test process.
    asio::awaitable<server_identity> handshake() {
        auto budget = detail::opening_budget::starting_now(core().wire().startup_timeout());
        co_return co_await detail::handshake_within(core(), false, budget);
    }

    /// Ends the session: pending calls end as `cancelled`; the server's stdin
    /// is closed, then SIGTERM, then SIGKILL, each bounded by stdio_server::shutdown;
    /// the process group is reaped. Safe to call twice.
    asio::awaitable<shutdown_result> close() {
        if (!core_) co_return shutdown_result{};
        auto keep = core_;
        co_return co_await keep->close();
    }

    // ---- state -----------------------------------------------------------

    [[nodiscard]] bool valid() const noexcept { return core_ != nullptr; }
    /// The server's pid (also its process group id).
    [[nodiscard]] pid_t pid() const { return core().pid(); }
    /// The process is running (it may still be unresponsive).
    [[nodiscard]] bool alive() const { return core().alive(); }
    [[nodiscard]] const exit_status& exit() const { return core().exit(); }
    [[nodiscard]] const mcp_loadtest::server_identity& identity() const { return core().identity; }
    [[nodiscard]] const std::string& protocol_version() const { return core().identity.protocol_version; }
    [[nodiscard]] const session_stats& stats() const { return core().stats(); }
    [[nodiscard]] const std::deque<notification>& notifications() const { return core().notifications(); }
    /// The first 100 violations (stats().protocol_violations counts all).
    [[nodiscard]] const std::vector<protocol_violation>& protocol_violations() const {
        return core().violations();
    }
    [[nodiscard]] const std::vector<late_reply>& late_replies() const { return core().late_replies(); }
    /// The tools, resources and prompts the server listed (through this
    /// session's list_* calls) against those called, with outcome counts.
    [[nodiscard]] coverage_report coverage() const { return core().coverage(); }
    /// Strict mode (client_options::strict): what broke a schema, the first
    /// 1000 (stats().schema_violations counts all). Empty when strict mode is off.
    [[nodiscard]] const std::vector<schema_violation>& schema_violations() const {
        return core().schema_violations();
    }
    [[nodiscard]] std::vector<in_flight_call> in_flight() const { return core().in_flight(); }
    /// The end of the server's stderr (capture or tee modes).
    [[nodiscard]] std::string stderr_tail(std::size_t max_bytes = 4096) const {
        return core().stderr_tail(max_bytes);
    }

private:
    friend struct detail::session_opener;

    detail::session_core& core() const {
        if (!core_)
            throw std::logic_error("mcp_loadtest::session used after being moved from or default-constructed; "
                                   "obtain one from co_await connect(server)");
        return *core_;
    }
    std::uint64_t peek_last_id() const noexcept { return core_->last_id(); }

    void abandon() noexcept {
        if (core_) core_->abort_now();
        core_.reset();
    }

    asio::awaitable<call_result> request_named(std::string_view method, const json& params, std::string tool,
                                               call_options options) {
        return detail::send_request(core(), method, params, std::move(tool), options);
    }

    asio::awaitable<call_result> start(detail::session_core::request_line&& req) {
        return detail::start_request(core_, std::move(req));
    }

    template <class Item, class Convert>
    // String literals only: coroutine parameters stay trivially copyable (GCC 12).
    asio::awaitable<listing<Item>> list(const char* method_name, const char* member_name, call_options options,
                                        Convert convert) {
        const std::string method = method_name;
        const std::string member = member_name;
        listing<Item> out;
        std::set<std::string> cursors_seen;
        json params = json::object();
        for (;;) {
            out.status = co_await request(method, params, options);
            ++out.pages;
            if (!out.status.ok()) co_return out;
            std::string next;
            try {
                const json page = out.status.result();
                if (auto items = page.find(member); items != page.end() && items->is_array())
                    for (const auto& item : *items) out.items.push_back(convert(item));
                next = page.value("nextCursor", "");
            } catch (const std::exception& e) {
                out.status.outcome = outcome::malformed;
                out.status.message = method + " page " + std::to_string(out.pages) + " is not shaped as the spec says: " + e.what();
                co_return out;
            }
            if (next.empty()) co_return out;
            if (!cursors_seen.insert(next).second) {
                out.status.outcome = outcome::malformed;
                out.status.message = method + " returned the cursor \"" + next +
                                     "\" twice; following it would loop forever. The server's pagination is broken.";
                co_return out;
            }
            params["cursor"] = next;
        }
    }

    std::shared_ptr<detail::session_core> core_;
};

namespace detail {

// Coroutines take one shared_ptr parameter: GCC 12 mis-copies some by-value
// class-type coroutine parameters into the frame (seen as double frees).
inline asio::awaitable<session> spawn_session(std::shared_ptr<session_job> job) {
    auto ex = co_await asio::this_coro::executor;
    auto wire = make_transport(ex, std::move(job->server));
    auto core = std::make_shared<session_core>(ex, std::move(wire), std::move(job->options));
    co_await core->open();
    co_return session(std::move(core));
}

// connect()'s access to the handle's core, for the opening (handshake.hpp).
struct session_opener {
    static asio::awaitable<server_identity> handshake(session& s, opening_budget& budget) {
        return handshake_within(s.core(), true, budget);
    }
    static asio::awaitable<server_identity> initialize(session& s, opening_budget& budget) {
        return initialize_within(s.core(), budget);
    }
    static std::chrono::milliseconds startup_timeout(const session& s) { return s.core().wire().startup_timeout(); }
};

inline asio::awaitable<session> connect_session(std::shared_ptr<session_job> job) {
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
}  // namespace detail

// Public entry points take no defaulted class-type arguments: GCC 12
// miscompiles such a default when the call sits inside a co_await expression
// (the temporary is destroyed while the callee still owns its contents).
// Overloads give the same convenience safely.

/// Forgets which era each server spoke (the cache handshake() keeps).
inline void forget_detected_eras() { detail::era_cache::clear(); }

/// Starts the server (spawns a stdio server, connects to a network one)
/// without the initialize handshake, for handshake timing or raw protocol
/// tests. Throws spawn_error or connect_error when it cannot.
inline asio::awaitable<session> spawn(any_server server, client_options options) {
    return detail::spawn_session(std::make_shared<detail::session_job>(std::move(server), std::move(options)));
}
inline asio::awaitable<session> spawn(any_server server) {
    return spawn(std::move(server), client_options{});
}

/// Starts or connects to the server and completes the handshake. Throws
/// spawn_error or connect_error with an actionable message.
inline asio::awaitable<session> connect(any_server server, client_options options) {
    return detail::connect_session(std::make_shared<detail::session_job>(std::move(server), std::move(options)));
}
inline asio::awaitable<session> connect(any_server server) {
    return connect(std::move(server), client_options{});
}

// A concrete server description is checked at compile time: without its
// transport's header (e.g. <mcp_loadtest/http.hpp> for an http_server) the
// call does not compile, and the message names the header. An any_server is
// checked when connected (std::logic_error naming the header).
template <detail::server_description Server>
asio::awaitable<session> spawn(Server server, client_options options) {
    detail::require_transport<Server>();
    return spawn(any_server(std::move(server)), std::move(options));
}
template <detail::server_description Server>
asio::awaitable<session> spawn(Server server) {
    detail::require_transport<Server>();
    return spawn(any_server(std::move(server)), client_options{});
}
template <detail::server_description Server>
asio::awaitable<session> connect(Server server, client_options options) {
    detail::require_transport<Server>();
    return connect(any_server(std::move(server)), std::move(options));
}
template <detail::server_description Server>
asio::awaitable<session> connect(Server server) {
    detail::require_transport<Server>();
    return connect(any_server(std::move(server)), client_options{});
}

}  // namespace mcp_loadtest
