// MCP over WebSocket (websocket_server): one JSON-RPC message per text frame.
// Include it where a test connects to one; it brings the WebSocket, HTTP
// handshake, SHA-1 and (with MCP_LOADTEST_WITH_TLS) TLS code.
//
//     #include <mcp_loadtest/websocket.hpp>
//     auto s = co_await mcp_loadtest::connect(mcp_loadtest::websocket_server{"ws://127.0.0.1:8080/mcp"});
#pragma once

#include <mcp_loadtest/detail/transport/transport_registry.hpp>
#include <mcp_loadtest/detail/transport/websocket_transport.hpp>
#include <mcp_loadtest/network_server.hpp>
#include <mcp_loadtest/session.hpp>

namespace mcp_loadtest::detail {

template <>
inline constexpr bool transport_included<websocket_server> = true;

inline const bool websocket_transport_registered = register_transport<websocket_server, websocket_transport>();

}  // namespace mcp_loadtest::detail
