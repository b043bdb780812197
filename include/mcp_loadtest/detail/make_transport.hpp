// Builds the transport a server description asks for.
#pragma once

#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/detail/http_transport.hpp>
#include <mcp_loadtest/detail/socket_transport.hpp>
#include <mcp_loadtest/detail/stdio_transport.hpp>
#include <mcp_loadtest/detail/websocket_transport.hpp>

#include <memory>
#include <variant>

namespace mcp_loadtest::detail {

inline std::shared_ptr<transport> make_transport(asio::any_io_executor ex, any_server server) {
    return std::visit(
        [&ex](auto&& s) -> std::shared_ptr<transport> {
            using T = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<T, stdio_server>) return std::make_shared<stdio_transport>(ex, std::move(s));
            else if constexpr (std::is_same_v<T, socket_server>) return std::make_shared<socket_transport>(ex, std::move(s));
            else if constexpr (std::is_same_v<T, websocket_server>)
                return std::make_shared<websocket_transport>(ex, std::move(s));
            else return std::make_shared<http_transport>(ex, std::move(s));
        },
        std::move(server));
}

}  // namespace mcp_loadtest::detail
