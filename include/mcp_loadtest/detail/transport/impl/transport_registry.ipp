// Definitions of detail/transport/transport_registry.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/transport_registry.hpp>

#include <cstddef>
#include <variant>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL transport_factory& transport_slot(std::size_t index) noexcept {
    static transport_factory slots[std::variant_size_v<any_server>] = {};
    return slots[index];
}

MCP_LOADTEST_DECL const char* transport_header(const any_server& server) noexcept {
    switch (server.index()) {
        case server_index<http_server>():
        case server_index<sse_server>(): return "<mcp_loadtest/http.hpp>";
        case server_index<websocket_server>(): return "<mcp_loadtest/websocket.hpp>";
        case server_index<socket_server>(): return "<mcp_loadtest/socket.hpp>";
        default: return "<mcp_loadtest/session.hpp>";
    }
}

}  // namespace mcp_loadtest::detail
