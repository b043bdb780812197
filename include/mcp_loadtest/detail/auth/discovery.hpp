// The rules of MCP authorization discovery, as pure functions (no I/O, so each is tested
// alone): where protected resource metadata (RFC 9728) and authorization server metadata
// (RFC 8414, OpenID Connect Discovery) are looked for and in which order, whether a
// resource's metadata may be trusted for this server, which scopes to ask for, and how to
// authenticate at the token endpoint.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/auth.hpp>
#include <mcp_loadtest/detail/wire/url.hpp>
#include <mcp_loadtest/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

/// The resource identifier of an MCP endpoint (RFC 8707 §2): scheme, host, port and path,
/// without query or fragment.
[[nodiscard]] MCP_LOADTEST_DECL std::string resource_identifier(const url& server);

/// Where protected resource metadata is looked for when the 401 names none, in order: the
/// path-inserted well-known URL (when the endpoint has a path), then the root one.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<std::string> protected_resource_metadata_urls(const url& server);

/// Where an authorization server's metadata is looked for, in the MCP spec's order. Issuer
/// with a path ("https://as/tenant1"): RFC 8414 path-inserted, OIDC path-inserted, OIDC
/// path-appended. Without: RFC 8414, then OIDC.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<std::string> authorization_server_metadata_urls(const url& issuer);

/// Whether metadata naming `resource` may be used for `server`: same origin, and the server's
/// path within the resource's (what the SDKs accept). A mismatch means the metadata is
/// another resource's: tokens for it must not be sent here, nor this server's elsewhere.
[[nodiscard]] MCP_LOADTEST_DECL bool resource_matches(std::string_view resource, const url& server);

/// The scope to request: `explicit_scope`; else the challenge's; else the resource's
/// `scopes_supported`; else none (empty: the parameter is left out). `offline_access` is
/// added when the authorization server lists it and `offline` asks for it.
[[nodiscard]] MCP_LOADTEST_DECL std::string choose_scope(std::string_view explicit_scope, std::string_view challenge_scope,
                                                         const json& resource_metadata, const json& server_metadata,
                                                         bool offline);

/// The union of two space-separated scope lists, in first-seen order.
[[nodiscard]] MCP_LOADTEST_DECL std::string merge_scopes(std::string_view a, std::string_view b);

/// The token endpoint authentication to use: `wanted` unless automatic; else what
/// registration said; else private_key_jwt with a key, and with a secret the first of
/// basic, post and none the server supports (unlisted: basic, RFC 8414's default); else none.
[[nodiscard]] MCP_LOADTEST_DECL token_endpoint_auth choose_token_auth(token_endpoint_auth wanted, bool have_secret,
                                                                      bool have_key, std::string_view registered,
                                                                      const json& server_metadata);

[[nodiscard]] MCP_LOADTEST_DECL std::string_view to_string(token_endpoint_auth a) noexcept;

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/auth/impl/discovery.ipp>
#endif
