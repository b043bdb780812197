// Definitions of detail/transport/make_transport.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/make_transport.hpp>

#include <mcp_loadtest/detail/transport/stdio_transport.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <variant>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::shared_ptr<transport> make_transport(asio::any_io_executor ex, any_server server) {
    if (auto* stdio = std::get_if<stdio_server>(&server))
        return std::make_shared<stdio_transport>(ex, std::move(*stdio));
    if (const transport_factory make = transport_slot(server.index())) return make(std::move(ex), std::move(server));
    // A programming error, not a server failure: say which include fixes it.
    throw std::logic_error("mcp_loadtest: no " + transport_name(server) + " transport in this program (for " +
                           describe(server) + "). #include " + transport_header(server) +
                           " in one of the test's source files.");
}

}  // namespace mcp_loadtest::detail
