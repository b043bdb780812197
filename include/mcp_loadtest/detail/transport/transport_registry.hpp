// Which transports this program can build. The stdio transport is always
// there; each network transport is registered by the public header that brings
// it (mcp_loadtest/http.hpp, websocket.hpp, socket.hpp), so a test that only
// spawns stdio servers never compiles HTTP, WebSocket or TLS code.
//
// Registration happens during static initialization, from any translation
// unit of the program that includes the header: one file of a test binary is
// enough. A lookup is one array read; the table never changes after main().
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/transport/transport.hpp>

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <variant>

namespace mcp_loadtest::detail {

using transport_factory = std::shared_ptr<transport> (*)(asio::any_io_executor, any_server&&);

/// The position of `Server` in any_server.
template <class Server, std::size_t I = 0>
constexpr std::size_t server_index() {
    static_assert(I < std::variant_size_v<any_server>, "not a server description of any_server");
    if constexpr (std::is_same_v<std::variant_alternative_t<I, any_server>, Server>) return I;
    else return server_index<Server, I + 1>();
}

/// One slot per alternative of any_server; constant-initialized (all null),
/// so registration from any static initializer finds it ready.
MCP_LOADTEST_DECL transport_factory& transport_slot(std::size_t index) noexcept;

/// Makes `Transport` the one built for `Server`. Returns true, for use as a
/// static initializer.
template <class Server, class Transport>
bool register_transport() noexcept {
    transport_slot(server_index<Server>()) = [](asio::any_io_executor ex,
                                                 any_server&& server) -> std::shared_ptr<transport> {
        return std::make_shared<Transport>(std::move(ex), std::get<Server>(std::move(server)));
    };
    return true;
}

/// True where the header that registers Server's transport was included
/// before the use: connect() and spawn() check it at compile time for a
/// concrete server description. (An any_server is checked when it is used.)
template <class Server>
inline constexpr bool transport_included = false;
template <>
inline constexpr bool transport_included<stdio_server> = true;

/// The header that brings a server description's transport, for messages.
MCP_LOADTEST_DECL const char* transport_header(const any_server& server) noexcept;

/// Fails the compilation, naming the header to include, when `Server`'s
/// transport is not part of this translation unit.
template <class Server>
constexpr void require_transport() noexcept {
    if constexpr (std::is_same_v<Server, http_server> || std::is_same_v<Server, sse_server>)
        static_assert(transport_included<Server>,
                      "mcp_loadtest: http_server and sse_server need #include <mcp_loadtest/http.hpp>");
    else if constexpr (std::is_same_v<Server, websocket_server>)
        static_assert(transport_included<Server>,
                      "mcp_loadtest: websocket_server needs #include <mcp_loadtest/websocket.hpp>");
    else if constexpr (std::is_same_v<Server, socket_server>)
        static_assert(transport_included<Server>,
                      "mcp_loadtest: socket_server needs #include <mcp_loadtest/socket.hpp>");
}

template <class T, class Variant>
struct is_alternative_of : std::false_type {};
template <class T, class... Ts>
struct is_alternative_of<T, std::variant<Ts...>> : std::bool_constant<(std::is_same_v<T, Ts> || ...)> {};

/// One of the server descriptions any_server holds (not any_server itself).
template <class T>
concept server_description = is_alternative_of<std::remove_cvref_t<T>, any_server>::value;

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/transport_registry.ipp>
#endif
