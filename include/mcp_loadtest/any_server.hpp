// Any server description: what connect(), run() and the detectors accept, so
// a load test changes transport by changing one value.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/network_server.hpp>
#include <mcp_loadtest/server.hpp>

#include <cctype>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

namespace mcp_loadtest {

using any_server = std::variant<stdio_server, http_server, sse_server, websocket_server, socket_server>;

namespace detail {
/// Drops userinfo ("user:password@") and query values named like secrets.
MCP_LOADTEST_DECL std::string redact_url(std::string_view url);
}  // namespace detail

/// For messages and reports: the command line, or the URL without credentials.
MCP_LOADTEST_DECL std::string describe(const any_server& server);

/// "stdio", "streamable-http", "http+sse", "websocket", "tcp" or "unix".
MCP_LOADTEST_DECL std::string transport_name(const any_server& server);


}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/any_server.ipp>
#endif
