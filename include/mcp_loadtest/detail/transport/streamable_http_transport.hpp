// MCP Streamable HTTP (2025-03-26 .. 2025-11-25, and the stateless
// 2026-07-28 form) over the shared HTTP connection pool: the session id and
// protocol version headers, the standalone GET stream, resuming a reply
// stream with Last-Event-ID, re-initialising an expired session, and DELETE
// on close.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/transport/http_pool.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace mcp_loadtest::detail {

class streamable_http_transport final : public http_pool_transport {
public:
    streamable_http_transport(asio::any_io_executor ex, http_server server)
        : http_pool_transport(std::move(ex), server), open_get_stream_(server.open_get_stream), delete_on_close_(server.delete_on_close),
          reinitialize_(server.reinitialize_expired_sessions) {}

    MCP_LOADTEST_DECL void set_protocol_version(std::string_view version) override;

    [[nodiscard]] std::string_view kind() const noexcept override { return "streamable-http"; }

private:
    void append_session_headers(std::string& out) const { out += session_headers_; }

    // After session_id_ or protocol_version_ changed.
    MCP_LOADTEST_DECL void rebuild_session_headers();

    // Modern requests also name their method (and tool, prompt or resource) in
    // headers, so a gateway can route without parsing the body.
    MCP_LOADTEST_DECL void append_message_headers(std::string& out, const outgoing& info) const override;

    MCP_LOADTEST_DECL void on_head(exchange& ex, const http1::response_head& head,
                                   std::optional<std::string_view> ct) override;

    // The JSON answer to a POSTed request is its reply: if it did not settle the call, nothing will.
    MCP_LOADTEST_DECL void answer_left_call_pending(exchange& ex, std::string_view body) override;

    // ---- streams --------------------------------------------------------------

    // The reply's SSE stream ended before the response, after events with ids:
    // reconnect with GET and Last-Event-ID after the server's `retry` delay
    // (2025-11-25 resumability). At most 5 times per call.
    MCP_LOADTEST_DECL bool try_resume(exchange& ex) override;

    // The standalone GET stream: where a legacy-era server sends its own
    // requests and notifications outside any call.
    MCP_LOADTEST_DECL void open_get_stream();

    [[nodiscard]] bool streams_settled() const override { return !get_stream_started_ || get_stream_settled_; }

    // ---- an expired session -----------------------------------------------------

    MCP_LOADTEST_DECL void keep_for_replay(exchange& ex, std::string_view body) override;

    [[nodiscard]] MCP_LOADTEST_DECL bool session_gone(const exchange& ex, int status) const override;

    MCP_LOADTEST_DECL bool resend_on_new_session(exchange& ex) override;

    // The session expired: initialize again (our own exchange, its reply kept
    // from the core), then send the waiting requests again on the new session.
    MCP_LOADTEST_DECL bool replay_after_reinitialize(exchange& failed);

    MCP_LOADTEST_DECL void after_reinitialize(bool ok, const std::string& why);

    // ---- our own exchanges: re-initialisation, DELETE, the GET stream ------------

    MCP_LOADTEST_DECL void own_exchange_done(exchange& ex) override;

    MCP_LOADTEST_DECL void own_exchange_failed(exchange& ex, outcome /*o*/, const std::string& message) override;

    MCP_LOADTEST_DECL void settle(const exchange& ex);

    // Ends the session on the server (DELETE with its id), waiting a bounded time for the answer.
    MCP_LOADTEST_DECL asio::awaitable<void> before_release() override;

    bool open_get_stream_ = false, delete_on_close_ = false, reinitialize_ = false;
    std::string session_id_, protocol_version_;
    std::string session_headers_;  // their header lines, made once per change rather than per request
    bool delete_done_ = true;
    bool get_stream_started_ = false, get_stream_settled_ = false;
    // Re-initialisation of an expired session: the handshake messages as first
    // sent, and the requests waiting to be sent again on the new session.
    std::string initialize_body_, initialized_body_;
    bool reinitializing_ = false;
    std::vector<std::shared_ptr<exchange>> replay_;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/streamable_http_transport.ipp>
#endif
