// mcp_loadtest::separate, part "network": the network transports: TCP and Unix sockets, Streamable HTTP, HTTP+SSE, WebSocket, TLS.
// Every impl/*.ipp is in exactly one part (tests/check_library_parts.py).
#include <mcp_loadtest/impl/part.hpp>

#include <mcp_loadtest/detail/impl/base64.ipp>
#include <mcp_loadtest/detail/impl/byte_stream.ipp>
#include <mcp_loadtest/detail/impl/http1.ipp>
#include <mcp_loadtest/detail/impl/http_exchange.ipp>
#include <mcp_loadtest/detail/impl/http_pool.ipp>
#include <mcp_loadtest/detail/impl/legacy_sse_transport.ipp>
#include <mcp_loadtest/detail/impl/net_connect.ipp>
#include <mcp_loadtest/detail/impl/sha1.ipp>
#include <mcp_loadtest/detail/impl/socket_transport.ipp>
#include <mcp_loadtest/detail/impl/sse.ipp>
#include <mcp_loadtest/detail/impl/streamable_http_transport.ipp>
#include <mcp_loadtest/detail/impl/url.ipp>
#include <mcp_loadtest/detail/impl/websocket.ipp>
#include <mcp_loadtest/detail/impl/websocket_transport.ipp>
#include <mcp_loadtest/impl/network_server.ipp>
