// An MCP client session with one server, driven with co_await.
//
//     auto s = co_await mcp_loadtest::connect(mcp_loadtest::stdio_server{"python3", {"server.py"}});
//     auto reply = co_await s.call_tool("echo", {{"message", "hi"}}, {.timeout = 5s});
//
// Every operation is bounded (per-call timeout, optional session deadline) and
// ends in exactly one outcome of the taxonomy (outcome.hpp). Any number of calls
// may be in flight at once on one session: they are pipelined on one pipe and
// correlated by id. A session is used from the executor it was created on.
#pragma once

#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/client_options.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/session_core.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/server.hpp>
#include <mcp_loadtest/session_info.hpp>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest {

namespace detail {
struct start_request_initiation {
    std::shared_ptr<session_core> core;
    template <class Handler>
    void operator()(Handler&& handler, session_core::request_line req) const {
        core->start_request(std::move(req), call_completion(std::forward<Handler>(handler)));
    }
};
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
        detail::session_core::request_line req;
        req.id = c.next_id();
        req.method = "tools/call";
        req.tool.assign(name);
        req.options = options;
        using namespace std::string_view_literals;
        std::string& line = req.line;
        line.reserve(96 + name.size() + args.text().size());
        detail::begin_request(line, req.id, "tools/call"sv);
        line += R"(,"params":{"name":)"sv;
        detail::append_json_string(line, name);
        line += R"(,"arguments":)"sv;
        line += args.text();
        append_progress_meta(line, req);
        line += "}}\n"sv;
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
        return list<tool_info>("tools/list", "tools", options, [](const json& t) {
            tool_info i;
            i.name = t.value("name", "");
            i.title = t.value("title", "");
            i.description = t.value("description", "");
            if (auto s = t.find("inputSchema"); s != t.end()) i.input_schema = *s;
            i.raw = t;
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
        auto& c = core();
        const client_options& o = c.options();
        const std::string offered =
            o.protocol_version.empty() ? supported_protocol_versions().back() : o.protocol_version;
        json capabilities = json::object();
        if (o.declare_roots || !o.roots.empty()) capabilities["roots"] = json{{"listChanged", false}};
        if (o.request_handlers.count("sampling/createMessage")) capabilities["sampling"] = json::object();
        if (o.request_handlers.count("elicitation/create")) capabilities["elicitation"] = json::object();
        if (o.extra_capabilities.is_object()) capabilities.update(o.extra_capabilities);
        const json params{{"protocolVersion", offered},
                          {"capabilities", capabilities},
                          {"clientInfo", {{"name", o.client_name}, {"version", o.client_version}}}};
        call_options opts;
        opts.timeout = c.server().startup_timeout;
        call_result r = co_await request("initialize", params, opts);
        const std::string who = "server `" + c.server().command_line() + "`";
        if (!r.ok()) {
            std::string why;
            switch (r.outcome) {
                case outcome::hang:
                    why = who + " did not answer initialize within " +
                          std::to_string(c.server().startup_timeout.count()) +
                          " ms (stdio_server.startup_timeout). Hint: if it starts slowly, raise "
                          "startup_timeout; check that it reads newline-delimited JSON-RPC on stdin and "
                          "writes replies to stdout." +
                          c.stderr_hint();
                    break;
                case outcome::crash:
                case outcome::disconnected:
                    why = who + " failed during initialize: " + r.message +
                          " Hint: run the command by hand to see why it exits.";
                    break;
                default: why = who + " rejected initialize: " + r.describe(); break;
            }
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
        c.identity = id;
        notify("notifications/initialized");
        co_return id;
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
    [[nodiscard]] std::vector<in_flight_call> in_flight() const { return core().in_flight(); }
    /// The end of the server's stderr (capture or tee modes).
    [[nodiscard]] std::string stderr_tail(std::size_t max_bytes = 4096) const {
        return core().stderr_tail(max_bytes);
    }

private:
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

    static void append_progress_meta(std::string& line, const detail::session_core::request_line& req) {
        if (!req.options.progress) return;
        line += R"(,"_meta":{"progressToken":)";
        detail::append_uint(line, req.id);
        line += '}';
    }

    asio::awaitable<call_result> request_named(std::string_view method, const json& params, std::string tool,
                                               call_options options) {
        auto& c = core();
        detail::session_core::request_line req;
        req.id = c.next_id();
        req.method.assign(method);
        req.tool = std::move(tool);
        req.options = options;
        detail::begin_request(req.line, req.id, method);
        if (options.progress) {
            json p = params.is_object() ? params : json::object();
            p["_meta"]["progressToken"] = req.id;
            req.line += R"(,"params":)";
            req.line += p.dump();
        } else if (!params.is_null()) {
            req.line += R"(,"params":)";
            req.line += params.dump();
        }
        req.line += "}\n";
        return start(std::move(req));
    }

    asio::awaitable<call_result> start(detail::session_core::request_line&& req) {
        return asio::async_initiate<const asio::use_awaitable_t<>&, void(call_result)>(
            detail::start_request_initiation{core_}, asio::use_awaitable, std::move(req));
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
struct session_job {
    stdio_server server;
    client_options options;
};

// Coroutines take one shared_ptr parameter: GCC 12 mis-copies some by-value
// class-type coroutine parameters into the frame (seen as double frees).
inline asio::awaitable<session> spawn_session(std::shared_ptr<session_job> job) {
    auto ex = co_await asio::this_coro::executor;
    auto core = std::make_shared<session_core>(ex, std::move(job->server), std::move(job->options));
    core->start();
    co_return session(std::move(core));
}

inline asio::awaitable<session> connect_session(std::shared_ptr<session_job> job) {
    session s = co_await spawn_session(std::move(job));
    co_await s.initialize();
    co_return s;
}
}  // namespace detail

// Public entry points take no defaulted class-type arguments: GCC 12
// miscompiles such a default when the call sits inside a co_await expression
// (the temporary is destroyed while the callee still owns its contents).
// Overloads give the same convenience safely.

/// Starts the server process without the initialize handshake (for handshake
/// timing or raw protocol tests). Throws spawn_error when it cannot start.
inline asio::awaitable<session> spawn(stdio_server server, client_options options) {
    return detail::spawn_session(std::make_shared<detail::session_job>(std::move(server), std::move(options)));
}
inline asio::awaitable<session> spawn(stdio_server server) {
    return spawn(std::move(server), client_options{});
}

/// Starts the server and completes the initialize handshake. Throws
/// spawn_error or connect_error with an actionable message.
inline asio::awaitable<session> connect(stdio_server server, client_options options) {
    return detail::connect_session(std::make_shared<detail::session_job>(std::move(server), std::move(options)));
}
inline asio::awaitable<session> connect(stdio_server server) {
    return connect(std::move(server), client_options{});
}

}  // namespace mcp_loadtest
