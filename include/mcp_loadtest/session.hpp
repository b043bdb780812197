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
// The opening and the protocol eras are detail/session/handshake.hpp; every JSON-RPC
// line is written by detail/wire/jsonrpc_writer.hpp.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/client_options.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/session/session_core.hpp>
#include <mcp_loadtest/detail/transport/transport_registry.hpp>
#include <mcp_loadtest/json.hpp>
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
struct opening_budget;  // detail/session/handshake.hpp
struct session_job;
struct session_opener;
struct session_core_access;
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
    MCP_LOADTEST_DECL session& operator=(session&& o) noexcept;
    session(const session&) = delete;
    session& operator=(const session&) = delete;
    /// Without close(), the server's process group is SIGKILLed and reaped here.
    ~session() { abandon(); }

    // ---- requests --------------------------------------------------------

    /// tools/call. Ends in ok, tool_error (isError: true) or a failure outcome.
    /// `args`: a json object, `{{"key", value}}`, or raw_json serialized once.
    MCP_LOADTEST_DECL asio::awaitable<call_result> call_tool(std::string_view name, const arguments& args,
                                                             call_options options = {});

    /// tools/call with no arguments (`{}`).
    asio::awaitable<call_result> call_tool(std::string_view name) { return call_tool(name, arguments{}, {}); }

    /// Any request by method name, e.g. request("completion/complete", params).
    MCP_LOADTEST_DECL asio::awaitable<call_result> request(std::string_view method, const json& params,
                                                           call_options options = {});
    MCP_LOADTEST_DECL asio::awaitable<call_result> request(std::string_view method);

    asio::awaitable<call_result> ping(call_options options = {}) { return request_named("ping", json::object(), {}, options); }

    MCP_LOADTEST_DECL asio::awaitable<call_result> read_resource(std::string_view uri, call_options options = {});

    MCP_LOADTEST_DECL asio::awaitable<call_result> get_prompt(std::string_view name, const json& prompt_arguments,
                                                              call_options options = {});
    asio::awaitable<call_result> get_prompt(std::string_view name) { return get_prompt(name, json::object()); }

    /// tools/list, following nextCursor through every page.
    MCP_LOADTEST_DECL asio::awaitable<listing<tool_info>> list_tools(call_options options = {});

    MCP_LOADTEST_DECL asio::awaitable<listing<resource_info>> list_resources(call_options options = {});

    MCP_LOADTEST_DECL asio::awaitable<listing<prompt_info>> list_prompts(call_options options = {});

    /// Sends a notification (fire and forget).
    MCP_LOADTEST_DECL void notify(std::string_view method, const json& params);
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
    MCP_LOADTEST_DECL asio::awaitable<call_result> send_raw(std::string_view bytes, raw_options options = {});

    /// Cancels an in-flight request: it ends as `cancelled`, and the server is
    /// sent notifications/cancelled. Returns false if it was not in flight.
    /// (Cancelling the awaiting coroutine through Asio's cancellation slots
    /// does the same.)
    MCP_LOADTEST_DECL bool cancel(std::uint64_t request_id, std::string_view reason = "cancelled by the test");

    /// The id the most recent request was given.
    [[nodiscard]] std::uint64_t last_request_id() const noexcept { return core_ ? peek_last_id() : 0; }

    // ---- lifecycle -------------------------------------------------------

    /// The initialize handshake: offers the newest version (or the pinned one),
    /// accepts what the server picks among accepted_versions, then sends
    /// notifications/initialized. Throws connect_error, with a message saying
    /// what went wrong and what to try, when it fails.
    MCP_LOADTEST_DECL asio::awaitable<server_identity> initialize();

    /// The modern (2026-07-28) opening: server/discover carrying the per-request
    /// _meta. An UnsupportedProtocolVersionError (-32022) is answered by
    /// retrying once with a mutually supported version. Throws connect_error.
    MCP_LOADTEST_DECL asio::awaitable<server_identity> discover();

    /// Opens the session in the era client_options::era asks for. `automatic`
    /// follows the spec's backward-compatibility rules: probe with
    /// server/discover; a DiscoverResult or a modern error (-32020..-32022)
    /// means modern; anything else (another error, no answer within
    /// discover_timeout, an HTTP 4xx without a modern error) means legacy, and
    /// the initialize handshake follows. startup_timeout bounds the whole
    /// opening: the probe gets at most half of it. The verdict is cached per
    /// server for the life of the test process.
    MCP_LOADTEST_DECL asio::awaitable<server_identity> handshake();

    /// Ends the session: pending calls end as `cancelled`; the server's stdin
    /// is closed, then SIGTERM, then SIGKILL, each bounded by stdio_server::shutdown;
    /// the process group is reaped. Safe to call twice.
    MCP_LOADTEST_DECL asio::awaitable<shutdown_result> close();

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
    [[nodiscard]] MCP_LOADTEST_DECL const std::vector<protocol_violation>& protocol_violations() const;
    [[nodiscard]] const std::vector<late_reply>& late_replies() const { return core().late_replies(); }
    /// The tools, resources and prompts the server listed (through this
    /// session's list_* calls) against those called, with outcome counts.
    [[nodiscard]] coverage_report coverage() const { return core().coverage(); }
    /// client_options::record: every message so far, both directions, byte-exact (docs/replay.md).
    /// Empty when not recording.
    [[nodiscard]] MCP_LOADTEST_DECL recorded_session recorded() const;
    /// Strict mode (client_options::strict): what broke a schema, the first
    /// 1000 (stats().schema_violations counts all). Empty when strict mode is off.
    [[nodiscard]] MCP_LOADTEST_DECL const std::vector<schema_violation>& schema_violations() const;
    [[nodiscard]] std::vector<in_flight_call> in_flight() const { return core().in_flight(); }
    /// The end of the server's stderr (capture or tee modes).
    [[nodiscard]] MCP_LOADTEST_DECL std::string stderr_tail(std::size_t max_bytes = 4096) const;

private:
    friend struct detail::session_opener;
    friend struct detail::session_core_access;

    MCP_LOADTEST_DECL detail::session_core& core() const;
    std::uint64_t peek_last_id() const noexcept { return core_->last_id(); }

    MCP_LOADTEST_DECL void abandon() noexcept;

    MCP_LOADTEST_DECL asio::awaitable<call_result> request_named(std::string_view method, const json& params, std::string tool,
                                                                 call_options options);

    MCP_LOADTEST_DECL asio::awaitable<call_result> start(detail::session_core::request_box req);

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
MCP_LOADTEST_DECL asio::awaitable<session> spawn_session(std::shared_ptr<session_job> job);

// connect()'s access to the handle's core, for the opening (handshake.hpp).
struct session_opener {
    MCP_LOADTEST_DECL static asio::awaitable<server_identity> handshake(session& s, opening_budget& budget);
    MCP_LOADTEST_DECL static asio::awaitable<server_identity> initialize(session& s, opening_budget& budget);
    static std::chrono::milliseconds startup_timeout(const session& s) { return s.core().wire().startup_timeout(); }
};

MCP_LOADTEST_DECL asio::awaitable<session> connect_session(std::shared_ptr<session_job> job);

// The load engine's access to a handle's core, to await its calls in place (call_in_place.hpp).
struct session_core_access {
    static session_core& of(const session& s) { return s.core(); }
};
}  // namespace detail

// Public entry points take no defaulted class-type arguments: GCC 12
// miscompiles such a default when the call sits inside a co_await expression
// (the temporary is destroyed while the callee still owns its contents).
// Overloads give the same convenience safely.

/// Forgets which era each server spoke (the cache handshake() keeps).
MCP_LOADTEST_DECL void forget_detected_eras();

/// Starts the server (spawns a stdio server, connects to a network one)
/// without the initialize handshake, for handshake timing or raw protocol
/// tests. Throws spawn_error or connect_error when it cannot.
MCP_LOADTEST_DECL asio::awaitable<session> spawn(any_server server, client_options options);
MCP_LOADTEST_DECL asio::awaitable<session> spawn(any_server server);

/// Starts or connects to the server and completes the handshake. Throws
/// spawn_error or connect_error with an actionable message.
MCP_LOADTEST_DECL asio::awaitable<session> connect(any_server server, client_options options);
MCP_LOADTEST_DECL asio::awaitable<session> connect(any_server server);

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

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/session.ipp>
#endif
