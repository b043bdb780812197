// MCP over a TCP or Unix domain socket (socket_server): newline-delimited
// JSON-RPC, the stdio framing. Include it where a test connects to one.
//
//     #include <mcp_loadtest/socket.hpp>
//     auto s = co_await mcp_loadtest::connect(mcp_loadtest::socket_server{"tcp://127.0.0.1:9000"});
#pragma once

#include <mcp_loadtest/detail/transport/socket_transport.hpp>
#include <mcp_loadtest/detail/transport/transport_registry.hpp>
#include <mcp_loadtest/network_server.hpp>
#include <mcp_loadtest/session.hpp>

namespace mcp_loadtest::detail {

template <>
inline constexpr bool transport_included<socket_server> = true;

inline const bool socket_transport_registered = register_transport<socket_server, socket_transport>();

}  // namespace mcp_loadtest::detail
