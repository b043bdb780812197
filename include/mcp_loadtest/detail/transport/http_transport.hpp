// MCP over HTTP/1.1: Streamable HTTP (http_server) and the legacy HTTP+SSE
// transport (sse_server), two transports sharing one connection pool:
//
//   http_exchange.hpp              one request/response and its connection
//   http_pool.hpp                  the pool and the life of an exchange (shared)
//   streamable_http_transport.hpp  sessions, GET stream, resumption, DELETE
//   legacy_sse_transport.hpp       the endpoint stream
#pragma once

#include <mcp_loadtest/detail/transport/legacy_sse_transport.hpp>
#include <mcp_loadtest/detail/transport/streamable_http_transport.hpp>
#include <mcp_loadtest/detail/transport/transport_registry.hpp>

namespace mcp_loadtest::detail {

/// The name code used before the split: the transport for http_server.
using http_transport = streamable_http_transport;

/// Until every registration names legacy_sse_transport, one that asks for
/// http_transport with an sse_server gets the legacy transport.
template <>
inline bool register_transport<sse_server, http_transport>() noexcept {
    return register_transport<sse_server, legacy_sse_transport>();
}

}  // namespace mcp_loadtest::detail
