// Definitions of detail/auth/discovery.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/auth/discovery.hpp>

#include <algorithm>

namespace mcp_loadtest::detail {

namespace discovery_detail {
inline std::string path_of(const url& u) {
    std::string path = u.target.substr(0, u.target.find('?'));
    return path.empty() ? "/" : path;
}
inline std::vector<std::string> split_scopes(std::string_view s) {
    std::vector<std::string> out;
    while (!s.empty()) {
        const std::size_t sp = s.find(' ');
        const std::string_view word = s.substr(0, sp);
        if (!word.empty() && std::find(out.begin(), out.end(), word) == out.end()) out.emplace_back(word);
        s = sp == std::string_view::npos ? std::string_view{} : s.substr(sp + 1);
    }
    return out;
}
inline std::string join(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}
inline bool lists(const json& metadata, const char* field, std::string_view value) {
    const auto it = metadata.find(field);
    if (it == metadata.end() || !it->is_array()) return false;
    return std::any_of(it->begin(), it->end(), [&](const json& v) { return v.is_string() && v.get_ref<const std::string&>() == value; });
}
}  // namespace discovery_detail

MCP_LOADTEST_DECL std::string resource_identifier(const url& server) {
    return server.origin() + discovery_detail::path_of(server);
}

MCP_LOADTEST_DECL std::vector<std::string> protected_resource_metadata_urls(const url& server) {
    const std::string path = discovery_detail::path_of(server);
    std::vector<std::string> out;
    const std::string root = server.origin() + "/.well-known/oauth-protected-resource";
    if (path != "/") out.push_back(root + (path.back() == '/' ? path.substr(0, path.size() - 1) : path));
    out.push_back(root);
    return out;
}

MCP_LOADTEST_DECL std::vector<std::string> authorization_server_metadata_urls(const url& issuer) {
    std::string path = discovery_detail::path_of(issuer);
    while (!path.empty() && path.back() == '/') path.pop_back();
    const std::string o = issuer.origin();
    if (path.empty())
        return {o + "/.well-known/oauth-authorization-server", o + "/.well-known/openid-configuration"};
    return {o + "/.well-known/oauth-authorization-server" + path, o + "/.well-known/openid-configuration" + path,
            o + path + "/.well-known/openid-configuration"};
}

MCP_LOADTEST_DECL bool resource_matches(std::string_view resource, const url& server) {
    const auto r = parse_url(resource);
    if (!r || r->origin() != server.origin()) return false;
    std::string allowed = discovery_detail::path_of(*r);
    std::string requested = discovery_detail::path_of(server);
    if (allowed.back() != '/') allowed += '/';
    if (requested.back() != '/') requested += '/';
    return requested.starts_with(allowed);
}

MCP_LOADTEST_DECL std::string choose_scope(std::string_view explicit_scope, std::string_view challenge_scope,
                                           const json& resource_metadata, const json& server_metadata, bool offline) {
    using namespace discovery_detail;
    std::vector<std::string> scopes;
    if (!explicit_scope.empty()) {
        scopes = split_scopes(explicit_scope);
    } else if (!challenge_scope.empty()) {
        scopes = split_scopes(challenge_scope);
    } else if (const auto it = resource_metadata.find("scopes_supported"); it != resource_metadata.end() && it->is_array()) {
        for (const auto& s : *it)
            if (s.is_string() && std::find(scopes.begin(), scopes.end(), s.get<std::string>()) == scopes.end())
                scopes.push_back(s.get<std::string>());
    }
    // Refresh tokens are asked for only where the server offers them (SEP-2207), and only
    // alongside the scopes actually wanted: a request with no scope stays without one.
    if (offline && !scopes.empty() && lists(server_metadata, "scopes_supported", "offline_access") &&
        std::find(scopes.begin(), scopes.end(), "offline_access") == scopes.end())
        scopes.emplace_back("offline_access");
    return join(scopes);
}

MCP_LOADTEST_DECL std::string merge_scopes(std::string_view a, std::string_view b) {
    using namespace discovery_detail;
    auto words = split_scopes(a);
    for (auto& w : split_scopes(b))
        if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(std::move(w));
    return join(words);
}

MCP_LOADTEST_DECL token_endpoint_auth choose_token_auth(token_endpoint_auth wanted, bool have_secret, bool have_key,
                                                        std::string_view registered, const json& server_metadata) {
    using discovery_detail::lists;
    if (wanted != token_endpoint_auth::automatic) return wanted;
    if (registered == "client_secret_basic") return token_endpoint_auth::client_secret_basic;
    if (registered == "client_secret_post") return token_endpoint_auth::client_secret_post;
    if (registered == "private_key_jwt") return token_endpoint_auth::private_key_jwt;
    if (registered == "none") return token_endpoint_auth::none;
    if (have_key) return token_endpoint_auth::private_key_jwt;
    if (!have_secret) return token_endpoint_auth::none;
    const bool listed = server_metadata.contains("token_endpoint_auth_methods_supported");
    if (!listed || lists(server_metadata, "token_endpoint_auth_methods_supported", "client_secret_basic"))
        return token_endpoint_auth::client_secret_basic;
    if (lists(server_metadata, "token_endpoint_auth_methods_supported", "client_secret_post"))
        return token_endpoint_auth::client_secret_post;
    if (lists(server_metadata, "token_endpoint_auth_methods_supported", "none")) return token_endpoint_auth::none;
    // A secret the server lists no way of using: Basic, the RFC 6749 §2.3.1 default.
    return token_endpoint_auth::client_secret_basic;
}

MCP_LOADTEST_DECL std::string_view to_string(token_endpoint_auth a) noexcept {
    switch (a) {
        case token_endpoint_auth::automatic: return "automatic";
        case token_endpoint_auth::client_secret_basic: return "client_secret_basic";
        case token_endpoint_auth::client_secret_post: return "client_secret_post";
        case token_endpoint_auth::none: return "none";
        case token_endpoint_auth::private_key_jwt: return "private_key_jwt";
    }
    return "unknown";
}

}  // namespace mcp_loadtest::detail
