// OAuth 2.1 the way MCP authorization specifies it, for http_server and sse_server: a test
// gives credentials, and the library does the rest when the server answers 401.
//
//     mlt::oauth_options auth;
//     auth.grant = mlt::oauth_grant::client_credentials;
//     auth.client_id = "load-test";
//     auth.client_secret = std::getenv("CLIENT_SECRET");
//     mlt::http_server server{"https://mcp.example.com/mcp"};
//     server.oauth = mlt::make_oauth(auth);   // share it: every session copying `server` shares its tokens
//
// On a 401 the client discovers the protected resource metadata (RFC 9728) and the
// authorization server's metadata (RFC 8414, then OpenID discovery, then the 2025-03-26
// defaults), finds a client identity (pre-registered, a client ID metadata document, or
// dynamic registration, RFC 7591), gets a token (authorization code with PKCE, or client
// credentials) for the server as `resource` (RFC 8707), and sends the request again with it.
// Tokens are cached per client and resource, refreshed before they expire, and after a 401
// in the middle of a run. A 403 with `insufficient_scope` asks for the scopes it names
// (step-up), a bounded number of times. docs/authentication.md has each flow.
//
// Secrets (client_secret, private_key_pem, tokens, codes, verifiers) never appear in
// messages, reports or traces.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/transport/http_auth.hpp>
#include <mcp_loadtest/oauth_stats.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mcp_loadtest {

/// How the client gets its tokens.
enum class oauth_grant {
    authorization_code,  ///< with PKCE (S256) and state, through the `browser` step
    client_credentials,  ///< machine to machine: no user, the natural grant for load tests
    /// Enterprise-managed (SEP-990, "cross-app access"): the identity provider exchanges the
    /// user's ID token for an identity assertion (RFC 8693), which the authorization server
    /// takes as a JWT bearer grant (RFC 7523). Needs the idp_* fields.
    cross_app_access,
};

/// How the client authenticates itself at the token endpoint.
enum class token_endpoint_auth {
    automatic,            ///< what the server supports: basic, then post, then none (private_key_jwt with a key)
    client_secret_basic,  ///< HTTP Basic with the id and secret
    client_secret_post,   ///< the id and secret in the form body
    none,                 ///< a public client: client_id only
    private_key_jwt,      ///< a JWT signed with private_key_pem (RFC 7523), needs OpenSSL
};

/// Where the authorization code step is done: given the authorization URL, return the URL
/// the authorization server redirected to (with `code` and `state`). The default follows the
/// URL's redirects itself, which is how test identity providers approve without a user.
using oauth_browser = std::function<asio::awaitable<std::string>(const std::string& authorization_url)>;

struct oauth_options {
    oauth_grant grant = oauth_grant::authorization_code;

    // ---- who the client is (tried in the spec's order) --------------------------------
    /// Pre-registered: the id (and secret) the authorization server already knows.
    std::string client_id{};
    std::string client_secret{};  ///< secret: never printed
    /// A client ID metadata document's https URL, used as client_id where the authorization
    /// server supports them (`client_id_metadata_document_supported`).
    std::string client_metadata_url{};
    /// With none of the above, or the server not supporting them: dynamic client registration
    /// at the server's `registration_endpoint`, under this name.
    std::string client_name = "mcp-loadtest";

    token_endpoint_auth auth_method = token_endpoint_auth::automatic;
    /// private_key_jwt: the PEM private key (EC P-256 for ES256, RSA for RS256). Secret.
    std::string private_key_pem{};
    std::string signing_algorithm = "ES256";  ///< "ES256" or "RS256"
    std::string key_id{};                     ///< the JWT header's `kid` (empty: none)

    /// cross_app_access: the identity provider's token endpoint, its client id for this
    /// client, and the user's ID token there (secret).
    std::string idp_token_endpoint{};
    std::string idp_client_id{};
    std::string idp_id_token{};

    // ---- what to ask for -------------------------------------------------------------
    /// Scopes to ask for. Empty: the 401's WWW-Authenticate `scope`, else the protected
    /// resource's `scopes_supported`, else none (the parameter is omitted).
    std::string scope{};
    /// Where the authorization server sends the code (the default `browser` never loads it).
    std::string redirect_uri = "http://localhost:3000/callback";
    oauth_browser browser{};
    /// Step-ups (a 403 `insufficient_scope` asking for more scopes) per request.
    unsigned max_step_ups = 2;

    // ---- tokens ------------------------------------------------------------------------
    /// Refresh a token this long before it expires (at most half its lifetime before).
    std::chrono::milliseconds refresh_before_expiry = std::chrono::seconds(30);
    /// Bound on each request to the authorization server (connect, send, the whole answer).
    std::chrono::milliseconds request_timeout = std::chrono::seconds(10);
};

namespace detail {
struct oauth_state;
class oauth_flow;
}  // namespace detail

/// The OAuth client of one identity: its registration, discovered metadata and token cache,
/// shared by every session whose server description holds it. Thread-safe.
class oauth_client : public std::enable_shared_from_this<oauth_client> {
public:
    MCP_LOADTEST_DECL explicit oauth_client(oauth_options options);
    MCP_LOADTEST_DECL ~oauth_client();
    oauth_client(const oauth_client&) = delete;
    oauth_client& operator=(const oauth_client&) = delete;

    [[nodiscard]] const oauth_options& options() const noexcept { return options_; }
    [[nodiscard]] MCP_LOADTEST_DECL oauth_stats stats() const;

private:
    friend class detail::oauth_flow;
    oauth_options options_;
    std::unique_ptr<detail::oauth_state> state_;
};

/// An OAuth client for `options`, to put in http_server::oauth or sse_server::oauth.
[[nodiscard]] inline std::shared_ptr<oauth_client> make_oauth(oauth_options options) {
    return std::make_shared<oauth_client>(std::move(options));
}

namespace detail {
/// The HTTP transports reach OAuth through this seam, set where auth.hpp is included (a
/// program that never includes it compiles no OAuth).
[[nodiscard]] MCP_LOADTEST_DECL std::shared_ptr<http_authorizer> make_oauth_authorizer(std::shared_ptr<oauth_client> client);
[[nodiscard]] MCP_LOADTEST_DECL oauth_stats read_oauth_stats(const oauth_client& client);
inline const bool oauth_authorizer_registered =
    (set_http_authorizer_factory(&make_oauth_authorizer), set_oauth_stats_reader(&read_oauth_stats), true);
}  // namespace detail

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/auth.ipp>
#endif
