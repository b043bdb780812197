// The units the HTTP connection pool moves around: one exchange (a request and
// its response) and the keep-alive connection that carries it.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/wire/base64.hpp>
#include <mcp_loadtest/detail/transport/byte_stream.hpp>
#include <mcp_loadtest/detail/transport/handler_memory.hpp>
#include <mcp_loadtest/detail/wire/http1.hpp>
#include <mcp_loadtest/detail/wire/sse.hpp>
#include <mcp_loadtest/detail/transport/transport.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

struct http_connection;

/// Where a redirected exchange is now sent, and the way it came.
struct http_redirect_state {
    url current;               ///< the URL its request now goes to
    connect_route route;       ///< how to reach it
    std::string first_origin;  ///< the origin of the first request (credentials stay there)
    std::vector<std::string> chain;  ///< every URL so far, the first one included (no userinfo)
    bool credentials_dropped = false;  ///< a redirect left the first origin: no Authorization, Cookie, secrets
};

struct http_exchange {
    enum class kind { post, get_stream, del, legacy_stream, resume };
    kind what = kind::post;
    outgoing::kind message = outgoing::kind::request;
    std::uint64_t id = 0;
    bool is_initialize = false;
    bool is_initialized_notification = false;
    bool raw = false;  // session::send_raw: any answer body goes back to the core
    std::string label;      // unowned exchanges: what they carry, for messages
    bool internal = false;  // our own re-initialisation: its reply is not the core's
    bool replayed = false;  // sent again on a re-initialised session
    std::string body;       // the JSON-RPC message, kept only when it may be replayed
    std::string reply;      // response body (JSON replies and error bodies)
    bool abandoned = false;
    bool retried = false;  // a reused keep-alive connection failed before any byte: sent again once
    unsigned resumptions = 0;  // GETs with Last-Event-ID after the reply stream ended early
    std::string request;
    std::weak_ptr<http_connection> conn;
    // response
    int status = 0;
    bool is_sse = false;
    bool unexpected_type = false;  // a 2xx answer to a request, neither JSON nor SSE
    std::string content_type;      // as the server sent it, for messages
    std::size_t max_event_bytes = sse::parser::default_max_event_bytes;
    std::unique_ptr<sse::parser> sse_events;  // made when the reply turns out to be SSE
    MCP_LOADTEST_DECL sse::parser& events();
    std::uint64_t received = 0;
    std::string location;  // a redirect being followed: its Location, kept until the response ends
    std::unique_ptr<http_redirect_state> redirected;  // made by the first redirect
    // OAuth: the token version the request carries, the WWW-Authenticate of a 401 or 403,
    // and how often it was sent again after one (at most once for 401, max_step_ups for 403).
    std::uint32_t token_version = 0;
    std::string www_authenticate;
    std::uint8_t auth_resends = 0, step_ups = 0;
    // HTTP 429: the server's Retry-After, and how often the request was sent again after one.
    std::string retry_after;
    std::uint8_t throttle_resends = 0;
    [[nodiscard]] bool is_stream() const noexcept {
        return what == kind::get_stream || what == kind::legacy_stream || what == kind::resume;
    }
    // No call's deadline covers it: a notification, or a reply to a server's request.
    [[nodiscard]] bool unowned() const noexcept { return what == kind::post && message != outgoing::kind::request; }
    // Carries a message of the core (a POST, or the GET resuming a POST's reply stream).
    [[nodiscard]] bool carries_message() const noexcept { return what == kind::post || what == kind::resume; }
};

struct http_connection {
    explicit http_connection(const asio::any_io_executor& ex) : socket(ex), answer_deadline(ex) {}
    byte_stream socket;
    asio::steady_timer answer_deadline;  // armed only for unowned exchanges
    http1::response_parser parser{};
    std::vector<char> buffer = std::vector<char>(16 * 1024);
    handler_memory write_memory, read_memory;  // for the one write and the one read in flight
    std::shared_ptr<http_exchange> current;
    bool pooled = true;
    bool reused = false;
    bool reading = false;
    bool closed = false;
};

// Header values that are not plain printable ASCII travel base64-encoded (2026-07-28).
MCP_LOADTEST_DECL void append_http_header_value(std::string& out, std::string_view v);

// application/json, application/*+json (parameters and case ignored).
MCP_LOADTEST_DECL bool is_json_media_type(std::string_view content_type);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/http_exchange.ipp>
#endif
