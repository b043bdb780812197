// One HTTP request and its whole response on a connection of its own, bounded in time and
// size: what OAuth needs from the network (metadata documents, the token and registration
// endpoints, the authorization endpoint's redirect). Rare next to MCP traffic, so simple:
// a coroutine, no pool, "Connection: close". Proxies and TLS as the MCP transports do them.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/wire/http1.hpp>
#include <mcp_loadtest/detail/wire/proxy.hpp>
#include <mcp_loadtest/detail/wire/url.hpp>
#include <mcp_loadtest/network_server.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest::detail {

/// How auth requests reach their servers: the MCP server's own proxy and TLS settings.
struct fetch_context {
    asio::any_io_executor executor;
    proxy_options proxy{};
    tls_options tls{};
    std::chrono::milliseconds timeout = std::chrono::seconds(10);  ///< connect, send and the whole response
    std::size_t max_body = 1024 * 1024;
};

struct fetch_request {
    std::string method = "GET";
    url target;
    std::vector<std::pair<std::string, std::string>> headers;  ///< besides Host, Content-Length, Connection
    std::string body;
    /// The Host header to send instead of the target's (a probe of the server's Host check); "" the target's.
    std::string host_override{};
};

struct fetch_response {
    int status = 0;  ///< 0: no response (see error)
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::string error;  ///< why there is no response: connect, TLS, timeout, malformed

    /// The first header `name` (case-insensitive).
    [[nodiscard]] MCP_LOADTEST_DECL std::optional<std::string> header(std::string_view name) const;
    [[nodiscard]] bool ok() const noexcept { return status >= 200 && status < 300; }
};

/// Sends `request` and reads its response. Never throws for network failures: they are
/// fetch_response::error.
[[nodiscard]] MCP_LOADTEST_DECL asio::awaitable<fetch_response> http_fetch(const fetch_context& context,
                                                                        fetch_request request);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/auth/impl/http_fetch.ipp>
#endif
