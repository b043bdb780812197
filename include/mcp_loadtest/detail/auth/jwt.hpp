// Signed JWTs (RFC 7519) for OAuth client authentication with private_key_jwt (RFC 7523 §2.2):
// ES256 (EC P-256) and RS256 through OpenSSL, which TLS already brings. Without OpenSSL a
// signature cannot be made, and sign_jwt says so.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/json.hpp>

#include <string>

namespace mcp_loadtest::detail {

struct jwt_result {
    std::string token;  ///< header.payload.signature (a secret)
    std::string error;  ///< why there is none: the key, the algorithm, no OpenSSL
};

/// Signs `claims` with the PEM private key under `algorithm` ("ES256" or "RS256"); `key_id`
/// goes in the header's `kid` when not empty.
[[nodiscard]] MCP_LOADTEST_DECL jwt_result sign_jwt(const json& claims, const std::string& private_key_pem,
                                                    const std::string& algorithm, const std::string& key_id);

/// True when this build can sign (it has OpenSSL).
[[nodiscard]] MCP_LOADTEST_DECL bool jwt_signing_available() noexcept;

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/auth/impl/jwt.ipp>
#endif
