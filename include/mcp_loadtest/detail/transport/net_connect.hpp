// Bounded TCP and Unix-socket connects with actionable failure messages.
// Callback-based (not a coroutine): pooled HTTP connections open on the hot path.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/wire/proxy.hpp>

#include <asio/generic/stream_protocol.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace mcp_loadtest::detail {

/// A connected TCP or Unix-domain socket. Asio's generic socket is the same
/// type on every system (a descriptor on POSIX, a SOCKET on Windows), so the
/// transports above need no system of their own.
using connected_socket = asio::generic::stream_protocol::socket;

/// What a connect ends with: the socket, or why there is none.
struct connect_result {
    std::optional<connected_socket> socket;
    std::string error;  ///< what failed and a hint, when there is no socket
};

/// Called once, with the result.
using connect_handler = std::function<void(connect_result)>;

MCP_LOADTEST_DECL std::string connect_failure_hint(const asio::error_code& ec);

/// Connects to host:port within `timeout`, trying every resolved address.
MCP_LOADTEST_DECL void async_connect_tcp(asio::any_io_executor ex, const std::string& host, const std::string& port,
                                         std::chrono::milliseconds timeout, connect_handler handler);

/// Where a TCP connection to a server goes: straight there, or through an HTTP proxy (with a
/// CONNECT tunnel for https, wss and ws). Made once per server origin.
struct connect_route {
    std::string host, port;        ///< the server
    proxy_choice via;              ///< the proxy, if any
    bool tunnel = false;           ///< CONNECT host:port through the proxy first
    std::string proxy_authorization;  ///< "Basic ...", from the proxy URL's credentials (secret)

    [[nodiscard]] bool forwards() const noexcept { return via.proxy && !tunnel; }
};

/// The route to `target` under `choice` (see choose_proxy()).
[[nodiscard]] MCP_LOADTEST_DECL connect_route route_to(const url& target, proxy_choice choice);

/// Connects along `route` within `timeout` in all: to the server, or to the proxy and, for a
/// tunnel, through CONNECT (a refusal, e.g. 407 or 403, is an error naming the proxy).
MCP_LOADTEST_DECL void async_connect_route(asio::any_io_executor ex, const connect_route& route,
                                           std::chrono::milliseconds timeout, connect_handler handler);

/// Connects to a Unix domain socket within `timeout`.
MCP_LOADTEST_DECL void async_connect_unix(asio::any_io_executor ex, const std::string& path, std::chrono::milliseconds timeout,
                                          connect_handler handler);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/net_connect.ipp>
#endif
