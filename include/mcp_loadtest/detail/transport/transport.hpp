// The seam between JSON-RPC correlation (session_core) and the bytes on the
// wire (stdio pipes, sockets, HTTP, WebSocket). A transport frames messages;
// the core owns ids, deadlines and outcomes, so every transport gets the same
// hang/deadlock/crash semantics for free.
//
// Threading: both sides run on one executor. A transport's I/O handlers hold
// a shared_ptr to the transport, never to the core; the core detaches itself
// (events = nullptr) before it goes away.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/os/platform.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/outcome.hpp>
#include <mcp_loadtest/session_info.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest::detail {

/// What a message on its way out is, for transports that route or label by it
/// (HTTP: one POST per message, Mcp-Method/Mcp-Name headers, 202 for notifications).
struct outgoing {
    enum class kind : std::uint8_t { request, notification, response };
    kind what = kind::request;
    std::uint64_t id = 0;     ///< requests only
    std::string_view method;  ///< requests and notifications
    std::string_view name;    ///< tool or prompt name, resource uri (may be empty)
    /// Modern HTTP: Mcp-Param-<name> headers for x-mcp-header arguments (or null).
    const std::vector<std::pair<std::string, std::string>>* param_headers = nullptr;
    /// session::send_raw: the bytes are the test's, possibly not JSON-RPC at
    /// all; `id` is a private token. HTTP hands every answer body back.
    bool raw = false;
};

/// How a transport reports to the session core.
class transport_events {
public:
    /// One framed message (a line, an HTTP body, an SSE event, a WS text
    /// message); `http_status` is the status of the HTTP response carrying it (else 0).
    virtual void on_message(std::string_view text, int http_status) = 0;
    /// A message over max_message_size was discarded; `prefix` is its start and,
    /// once `complete`, `tail` its last bytes (the id may come last, as some
    /// SDKs write it). `complete` is false while the rest is still being skipped.
    virtual void on_oversized(std::string_view prefix, std::size_t size, bool complete, std::string_view tail) = 0;
    virtual void on_violation(protocol_violation::kind k, std::string_view text, std::size_t size) = 0;
    /// The exchange carrying request `id` failed (HTTP status, dropped
    /// connection, stream ended without its reply). Ignored if it already ended.
    virtual void on_request_failed(std::uint64_t id, outcome o, const std::string& message, int http_status) = 0;
    /// The transport is gone for good: every call in flight fails with this.
    virtual void on_transport_down(outcome o, const std::string& message) = 0;
    /// An HTTP exchange was redirected and is being sent again; `id` is the request it carries
    /// (0: none, e.g. a GET stream). Counted per call and per session.
    virtual void on_redirect(std::uint64_t /*id*/) {}
    /// Request `id` was held back `waited` for an OAuth token (refused, then sent again once
    /// one came): the session keeps that time out of the call's latency.
    virtual void on_token_wait(std::uint64_t /*id*/, std::chrono::nanoseconds /*waited*/) {}
    /// Request `id` is still waiting for its reply.
    [[nodiscard]] virtual bool is_pending(std::uint64_t id) const = 0;

protected:
    ~transport_events() = default;
};

class transport : public std::enable_shared_from_this<transport> {
public:
    virtual ~transport() = default;

    /// Starts the transport (spawns the process, connects the socket...).
    /// Throws spawn_error or connect_error with an actionable message.
    virtual asio::awaitable<void> open(transport_events& events, session_stats& stats) = 0;
    /// Sends one message; `line` ends with '\n' (line transports send it as is).
    virtual void send(std::string_view line, const outgoing& info) = 0;
    /// The client gave up on request `id` (timeout, cancellation): stop waiting for it.
    virtual void forget(std::uint64_t /*id*/) {}
    /// The protocol version is known (HTTP sends it as a header from now on;
    /// empty: send none).
    virtual void set_protocol_version(std::string_view /*version*/) {}
    /// The era in use: HTTP labels modern requests with Mcp-Method/Mcp-Name
    /// and keeps no session; legacy uses Mcp-Session-Id.
    virtual void set_era(protocol_era /*era*/) {}
    /// After a successful handshake: settle anything the transport opens in
    /// response (HTTP: the standalone GET stream), bounded.
    MCP_LOADTEST_DECL virtual asio::awaitable<void> after_handshake();
    /// Graceful end, bounded. Pending calls were already failed by the core.
    virtual asio::awaitable<shutdown_result> close() = 0;
    /// Synchronous last resort: release everything now (kills a child).
    virtual void abort_now() noexcept = 0;
    /// The core is going away: never call it again.
    MCP_LOADTEST_DECL void detach() noexcept;

    /// "stdio", "tcp", "unix", "streamable-http", "http+sse", "websocket".
    [[nodiscard]] virtual std::string_view kind() const noexcept = 0;
    /// "server `python3 server.py`", "server at http://127.0.0.1:3001/mcp": for messages.
    [[nodiscard]] virtual std::string describe() const = 0;
    /// Extra context for a failure message (e.g. the server's stderr tail).
    [[nodiscard]] virtual std::string failure_hint() const { return {}; }
    [[nodiscard]] virtual std::string stderr_tail(std::size_t /*max*/) const { return {}; }
    /// For a message about an opening left unanswered: what about how the
    /// server was started could explain it (stdio: a Python server whose stdout
    /// is block-buffered), else empty. Asked on failure only.
    [[nodiscard]] virtual std::string unanswered_hint() const { return {}; }
    /// For hang messages: " The server has stopped reading: ..." when our
    /// writes to it have made no progress for a while, else empty.
    [[nodiscard]] virtual std::string send_stall_hint() const { return {}; }
    [[nodiscard]] virtual std::chrono::milliseconds startup_timeout() const = 0;
    /// The server's pid when this transport spawned it, else -1.
    [[nodiscard]] virtual pid_t pid() const noexcept { return -1; }
    [[nodiscard]] virtual bool alive() const noexcept { return !down_; }
    [[nodiscard]] virtual const exit_status& exit() const noexcept { return no_exit_; }
    /// True when messages are independent HTTP exchanges (no ordering, no stream).
    [[nodiscard]] virtual bool is_http() const noexcept { return false; }

protected:
    MCP_LOADTEST_DECL void report_down(outcome o, const std::string& message);

    transport_events* events_ = nullptr;
    session_stats* stats_ = nullptr;
    bool down_ = false;
    exit_status no_exit_{};
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/transport.ipp>
#endif
