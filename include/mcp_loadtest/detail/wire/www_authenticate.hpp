// The WWW-Authenticate header (RFC 9110 §11.6.1): the challenges a 401 or 403 carries. MCP
// authorization reads its Bearer challenge (RFC 6750 §3): `resource_metadata` (RFC 9728 §5.1),
// `scope`, `error` ("invalid_token", "insufficient_scope") and `error_description`.
// Asio-free, so it is tested on every split of its input.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest::detail {

struct auth_challenge {
    std::string scheme;   ///< as sent ("Bearer"); compare case-insensitively
    std::string token68;  ///< the token68 form (rare), when it has no parameters
    std::vector<std::pair<std::string, std::string>> params;  ///< names lower-cased, values unquoted

    /// The value of parameter `name` (lower case), if present.
    [[nodiscard]] MCP_LOADTEST_DECL std::optional<std::string> param(std::string_view name) const;
};

/// Every challenge in one or more WWW-Authenticate values (several headers joined with ", "
/// parse the same as one). Malformed parts end the parse: what was read before them is kept.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<auth_challenge> parse_www_authenticate(std::string_view value);

/// The first challenge of `scheme` (case-insensitive), if any.
[[nodiscard]] MCP_LOADTEST_DECL std::optional<auth_challenge> find_challenge(std::string_view value, std::string_view scheme);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/wire/impl/www_authenticate.ipp>
#endif
