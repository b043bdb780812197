// The OAuth client's flows behind oauth_client: discovery, client identity, the grants, the
// token cache and its refresh. Transports call it when a server refuses a request (401, or
// 403 insufficient_scope) and before a token expires; concurrent callers for the same
// resource share one flow (the first runs it, the others wait for its token).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/auth.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/auth/http_fetch.hpp>
#include <mcp_loadtest/detail/transport/http_auth.hpp>
#include <mcp_loadtest/detail/wire/form.hpp>
#include <mcp_loadtest/detail/wire/url.hpp>
#include <mcp_loadtest/json.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace mcp_loadtest::detail {

/// One resource's discovered metadata, registration and token.
struct oauth_entry {
    bool discovered = false;
    bool legacy = false;  ///< 2025-03-26: no resource metadata, the server's origin is the authorization server
    json resource_metadata = json::object();
    json server_metadata = json::object();
    std::string resource;  ///< the `resource` parameter (RFC 8707)
    std::string resource_metadata_url;  ///< where the 401 said the metadata was ("" none)
    std::string issuer, authorization_endpoint, token_endpoint, registration_endpoint;
    std::string client_id, client_secret, registered_auth_method;
    std::string access_token, refresh_token, scope;
    std::chrono::steady_clock::time_point refresh_at = std::chrono::steady_clock::time_point::max();
    std::chrono::steady_clock::time_point expires_at = std::chrono::steady_clock::time_point::max();
    // One flow at a time: the others wait on a timer the finishing flow cancels.
    bool busy = false;
    std::vector<std::shared_ptr<asio::steady_timer>> waiters;
    std::string last_error;
    std::uint64_t generation = 0;  ///< bumped each time a flow ends
};

struct oauth_state {
    mutable std::mutex mutex;
    oauth_stats stats;
    std::map<std::string, std::shared_ptr<oauth_entry>> entries;  ///< by resource identifier
};

class oauth_flow {
public:
    /// A cached token for `server` that is not past its refresh time, without I/O ("" if none).
    [[nodiscard]] MCP_LOADTEST_DECL static auth_answer cached(oauth_client& client, const url& server);

    /// After a refusal of a request carrying `current`: the token to send it again with (one
    /// another session already got, a refreshed one, or a new authorization; a 403 asks for
    /// more scopes). With refusal.status 0: renews `current` before it expires.
    [[nodiscard]] MCP_LOADTEST_DECL static asio::awaitable<auth_answer> obtain(std::shared_ptr<oauth_client> client,
                                                                            auth_target target, auth_refusal refusal,
                                                                            std::string current);

    MCP_LOADTEST_DECL static void count_resend(oauth_client& client, bool step_up);

private:
    struct run_context;
    MCP_LOADTEST_DECL static asio::awaitable<std::string> discover(run_context& rc);
    MCP_LOADTEST_DECL static asio::awaitable<std::string> identify(run_context& rc);
    MCP_LOADTEST_DECL static asio::awaitable<std::string> grant(run_context& rc, const std::string& scope);
    MCP_LOADTEST_DECL static asio::awaitable<std::string> refresh_grant(run_context& rc);
    MCP_LOADTEST_DECL static asio::awaitable<std::string> token_request(run_context& rc, form_fields form,
                                                                     std::string endpoint);
    MCP_LOADTEST_DECL static asio::awaitable<fetch_response> fetch(run_context& rc, fetch_request request);
    MCP_LOADTEST_DECL static asio::awaitable<std::optional<json>> fetch_json(run_context& rc, std::string url_text);
};

/// The transports' view of an oauth_client (see detail/transport/http_auth.hpp).
class oauth_authorizer final : public http_authorizer {
public:
    explicit oauth_authorizer(std::shared_ptr<oauth_client> client) : client_(std::move(client)) {}
    [[nodiscard]] MCP_LOADTEST_DECL auth_answer cached(const url& server) override;
    MCP_LOADTEST_DECL void obtain(auth_target target, auth_refusal refusal, std::string current,
                                  std::function<void(auth_answer)> done) override;
    MCP_LOADTEST_DECL void count_resend(bool step_up) override;
    [[nodiscard]] unsigned max_step_ups() const override { return client_->options().max_step_ups; }

private:
    std::shared_ptr<oauth_client> client_;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/auth/impl/oauth_flow.ipp>
#endif
