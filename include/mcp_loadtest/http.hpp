// MCP over HTTP: Streamable HTTP (http_server) and the legacy HTTP+SSE
// transport (sse_server). Include it where a test connects to either; it
// brings the HTTP/1.1 client, SSE and (with MCP_LOADTEST_WITH_TLS) TLS code,
// which stdio-only tests do not compile.
//
//     #include <mcp_loadtest/http.hpp>
//     auto s = co_await mcp_loadtest::connect(mcp_loadtest::http_server{"http://127.0.0.1:3001/mcp"});
#pragma once

#include <mcp_loadtest/detail/transport/http_transport.hpp>
#include <mcp_loadtest/detail/transport/transport_registry.hpp>
#include <mcp_loadtest/network_server.hpp>
#include <mcp_loadtest/session.hpp>

namespace mcp_loadtest::detail {

template <>
inline constexpr bool transport_included<http_server> = true;
template <>
inline constexpr bool transport_included<sse_server> = true;

inline const bool http_transports_registered =
    register_transport<http_server, http_transport>() && register_transport<sse_server, http_transport>();

}  // namespace mcp_loadtest::detail
