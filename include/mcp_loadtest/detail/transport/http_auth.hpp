// The seam between the HTTP transports and OAuth (detail/auth/): what a transport tells the
// authorizer when a server refuses a request or a token is due for renewal, and what it gets
// back. The transports know only this interface; auth.hpp registers the implementation, so a
// program that never includes it compiles no OAuth.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/wire/url.hpp>
#include <mcp_loadtest/network_server.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace mcp_loadtest::detail {

/// What the server said when it refused a request.
struct auth_refusal {
    int status = 401;              ///< 401, 403 (insufficient_scope); 0: no refusal, the token is due for renewal
    std::string www_authenticate;  ///< the header's value(s), "" when absent
};

/// Where the token is for, and how to reach the authorization servers (the MCP server's own
/// proxy and TLS settings).
struct auth_target {
    url server;  ///< the MCP endpoint
    asio::any_io_executor executor;
    proxy_options proxy{};
    tls_options tls{};
};

struct auth_answer {
    std::string token;  ///< the access token (secret); empty on failure
    std::string error;  ///< why there is none
    /// When to renew it (time_point::max(): the server gave no lifetime).
    std::chrono::steady_clock::time_point refresh_at = std::chrono::steady_clock::time_point::max();
};

class http_authorizer {
public:
    virtual ~http_authorizer() = default;
    /// A cached token for `server` that is not yet due for renewal ("" if none), without I/O.
    [[nodiscard]] virtual auth_answer cached(const url& server) = 0;
    /// Gets a token after `refusal` of a request carrying `current` ("" none), or renews
    /// `current` (refusal.status 0). `done` is called once, through target.executor.
    virtual void obtain(auth_target target, auth_refusal refusal, std::string current,
                        std::function<void(auth_answer)> done) = 0;
    /// A refused request was sent again with a new token.
    virtual void count_resend(bool step_up) = 0;
    /// How often one request may be sent again after a 403 insufficient_scope.
    [[nodiscard]] virtual unsigned max_step_ups() const = 0;
};

using http_authorizer_factory = std::shared_ptr<http_authorizer> (*)(std::shared_ptr<oauth_client>);

MCP_LOADTEST_DECL void set_http_authorizer_factory(http_authorizer_factory f) noexcept;
[[nodiscard]] MCP_LOADTEST_DECL http_authorizer_factory get_http_authorizer_factory() noexcept;

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/http_auth.ipp>
#endif
