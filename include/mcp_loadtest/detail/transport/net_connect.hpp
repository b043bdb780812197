// Bounded TCP and Unix-socket connects with actionable failure messages.
// Callback-based (not a coroutine): pooled HTTP connections open on the hot path.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/asio_compat.hpp>

#include <chrono>
#include <functional>
#include <string>

namespace mcp_loadtest::detail {

/// Called once: an open, connected descriptor (ownership passes) or -1 and why.
using connect_handler = std::function<void(int fd, std::string error)>;

MCP_LOADTEST_DECL std::string connect_failure_hint(const asio::error_code& ec);

/// Connects to host:port within `timeout`, trying every resolved address.
MCP_LOADTEST_DECL void async_connect_tcp(asio::any_io_executor ex, const std::string& host, const std::string& port,
                                         std::chrono::milliseconds timeout, connect_handler handler);

/// Connects to a Unix domain socket within `timeout`.
MCP_LOADTEST_DECL void async_connect_unix(asio::any_io_executor ex, const std::string& path, std::chrono::milliseconds timeout,
                                          connect_handler handler);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/net_connect.ipp>
#endif
