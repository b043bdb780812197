// Describing a server reached over the network. A load test switches
// transport by changing only this description:
//
//     mlt::http_server{"http://127.0.0.1:3001/mcp"}        // Streamable HTTP
//     mlt::sse_server{"http://127.0.0.1:3001/sse"}         // legacy HTTP+SSE (2024-11-05)
//     mlt::websocket_server{"ws://127.0.0.1:8080/mcp"}     // one JSON-RPC message per text frame
//     mlt::socket_server{"tcp://127.0.0.1:9000"}           // newline-delimited, like stdio
//     mlt::socket_server{"unix:///run/my-server.sock"}
//
// Secrets (bearer_token, headers marked secret, Authorization, Cookie,
// passwords in URLs) never appear in messages, reports or traces.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

using namespace std::chrono_literals;

class oauth_client;  // <mcp_loadtest/auth.hpp>

/// A header sent with every HTTP request (and the WebSocket handshake).
struct http_header {
    std::string name{};
    std::string value{};
    bool secret = false;  ///< redact the value in messages (implied for Authorization, Cookie, *key*, *token*)

    [[nodiscard]] MCP_LOADTEST_DECL bool is_secret() const;
};

/// Bounds and limits shared by every network transport.
struct network_limits {
    /// TCP connect (and HTTP/WS handshake); HTTP: also how long a POST no call
    /// waits for (a notification, a reply to the server) may go unanswered.
    std::chrono::milliseconds connect_timeout = 5s;
    /// Bound on the whole opening: era detection (at most half of it), then initialize.
    std::chrono::milliseconds startup_timeout = 10s;
    std::size_t max_message_size = 16 * 1024 * 1024;   ///< longest accepted message or body
    /// Bytes waiting to be written to a server that is not reading (stream
    /// transports: TCP, Unix, WebSocket; HTTP: notifications and replies to the
    /// server waiting for a connection, also at most 1024 of them); past it the
    /// session ends as `hang`.
    std::size_t max_send_queue = 64 * 1024 * 1024;
};

/// TLS for https:// and wss:// URLs (needs OpenSSL: see docs/transports.md),
/// per server: whom to trust, and the client certificate for a server that
/// requires one (mutual TLS). Files are PEM; each `*_pem` field takes the same
/// PEM text in memory instead of a file (one or the other). key_pem and
/// key_password are secrets: never printed.
struct tls_options {
    bool verify = true;   ///< check the certificate chain and the host name (never turn off outside tests)
    std::string ca_file{};  ///< extra trusted CA / self-signed certificate(s) (PEM), besides the system store
    std::string ca_dir{};   ///< a directory of trusted CA certificates named by hash (`openssl rehash DIR`)
    std::string ca_pem{};   ///< extra trusted CA certificate(s) as PEM text
    bool system_trust = true;  ///< also trust the system store; false: only ca_file, ca_dir and ca_pem
    std::string cert_file{};   ///< the client certificate (PEM), then any intermediates; for mutual TLS
    std::string key_file{};    ///< its private key (PEM); empty with cert_file set: the key is in cert_file
    std::string cert_pem{};    ///< the client certificate chain as PEM text
    std::string key_pem{};     ///< its private key as PEM text (secret)
    std::string key_password{};  ///< pass phrase of an encrypted private key (secret)
};

/// An HTTP proxy between the client and an http://, https://, ws:// or wss:// server
/// (docs/transports.md#proxies). Plain http:// requests go to the proxy in absolute form; the
/// others through a CONNECT tunnel (TLS and the WebSocket handshake inside it). Credentials in
/// the proxy URL are sent as Proxy-Authorization: Basic and never printed.
struct proxy_options {
    /// "http://[user:password@]host[:port]": every connection goes through this proxy (loopback
    /// servers too), whatever the environment says. Empty: see `from_environment`.
    std::string url{};
    /// With `url` empty: true, use http_proxy / https_proxy / all_proxy and no_proxy (each also in
    /// upper case) as curl does, except for loopback servers; false, connect directly (no proxy).
    bool from_environment = true;
    /// Servers reached directly even when a proxy is configured, in the NO_PROXY syntax:
    /// "example.com,.internal,10.0.0.0/8,[::1]:8080,*" (host names match their subdomains too).
    std::string no_proxy{};
};

/// A server speaking MCP Streamable HTTP (2025-03-26 .. 2025-11-25) or the
/// stateless modern HTTP transport (2026-07-28) at one endpoint.
struct http_server {
    std::string url{};                    ///< the MCP endpoint, e.g. http://127.0.0.1:3001/mcp
    std::vector<http_header> headers{};   ///< extra headers on every request
    std::string bearer_token{};           ///< sent as Authorization: Bearer …; never printed
    /// OAuth 2.1 as MCP authorization specifies it (mlt::make_oauth(), <mcp_loadtest/auth.hpp>):
    /// tokens got on a 401, shared by every session holding the same client, renewed before
    /// they expire. Takes the place of bearer_token.
    std::shared_ptr<oauth_client> oauth{};
    std::size_t connections = 16;       ///< keep-alive pool size; concurrent calls spread over it
    bool open_get_stream = true;        ///< open the standalone GET stream for server-initiated messages
    bool delete_on_close = true;        ///< DELETE the session when the session is closed
    /// When the server forgets the session (404, or 400 from some servers):
    /// false, calls fail as `disconnected` saying so; true, initialize again
    /// (same capabilities) and send the failed requests once more on the new session.
    bool reinitialize_expired_sessions = false;
    /// Redirects followed per request (307/308 resend the POST with its body; 301/302/303 are
    /// followed for GETs only: see docs/transports.md#redirects). 0: none are followed.
    std::uint32_t max_redirects = 5;
    /// HTTP 429 Too Many Requests: false, the call ends `throttled` at once; true, it is sent
    /// again after the server's Retry-After (delay-seconds or an HTTP date), up to 3 times, when the wait is at
    /// most max_retry_after (else, or without a readable Retry-After, it ends `throttled`).
    bool honour_retry_after = false;
    std::chrono::milliseconds max_retry_after = 10s;
    proxy_options proxy{};
    tls_options tls{};
    network_limits limits{};
};

/// A server speaking the legacy HTTP+SSE transport (2024-11-05): GET the SSE
/// endpoint, POST messages to the URL its `endpoint` event names.
struct sse_server {
    std::string url{};                    ///< the SSE endpoint, e.g. http://127.0.0.1:3001/sse
    std::vector<http_header> headers{};
    std::string bearer_token{};
    std::shared_ptr<oauth_client> oauth{};  ///< as http_server::oauth
    std::size_t connections = 16;       ///< keep-alive pool for the POSTs
    std::uint32_t max_redirects = 5;    ///< as http_server::max_redirects (the GET of the stream included)
    bool honour_retry_after = false;    ///< as http_server::honour_retry_after
    std::chrono::milliseconds max_retry_after = 10s;
    proxy_options proxy{};
    tls_options tls{};
    network_limits limits{};
};

/// A server speaking JSON-RPC over WebSocket (RFC 6455), one message per text frame.
struct websocket_server {
    std::string url{};                    ///< ws://host:port/path
    std::vector<http_header> headers{};   ///< sent with the opening handshake
    std::string bearer_token{};
    std::string subprotocol = "mcp";    ///< Sec-WebSocket-Protocol offered (empty: none)
    proxy_options proxy{};              ///< ws:// and wss:// both go through a CONNECT tunnel
    tls_options tls{};
    network_limits limits{};
};

/// A server speaking newline-delimited JSON-RPC (the stdio framing) over a
/// TCP or Unix domain socket: "tcp://host:port" or "unix:///path/to.sock".
struct socket_server {
    std::string url{};
    network_limits limits{};
};

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/network_server.ipp>
#endif
