// Builds the transport a server description asks for: stdio directly, the
// network transports through the registry their public headers fill
// (transport_registry.hpp), so this file compiles no network code.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/detail/transport/transport_registry.hpp>

#include <memory>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::shared_ptr<transport> make_transport(asio::any_io_executor ex, any_server server);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/make_transport.ipp>
#endif
