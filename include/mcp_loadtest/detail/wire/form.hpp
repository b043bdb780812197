// application/x-www-form-urlencoded bodies and URL query strings, as OAuth sends and reads
// them (RFC 6749 Appendix B): the token request's body, the authorization request's query and
// the redirect carrying the code back. Asio-free.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest::detail {

using form_fields = std::vector<std::pair<std::string, std::string>>;

/// Percent-encodes everything but RFC 3986's unreserved characters (A-Z a-z 0-9 - . _ ~).
MCP_LOADTEST_DECL void percent_encode_append(std::string& out, std::string_view in);
[[nodiscard]] MCP_LOADTEST_DECL std::string percent_encode(std::string_view in);

/// "a=1&b=x%20y": names and values percent-encoded, in the order given.
[[nodiscard]] MCP_LOADTEST_DECL std::string form_encode(const form_fields& fields);

/// The fields of a query string or form body ("a=1&b=x+y"): '+' is a space, %XX decoded
/// (an invalid escape is kept as written), a field without '=' has an empty value.
[[nodiscard]] MCP_LOADTEST_DECL form_fields parse_form(std::string_view text);

/// The first field named `name`.
[[nodiscard]] MCP_LOADTEST_DECL std::optional<std::string> form_value(const form_fields& fields, std::string_view name);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/wire/impl/form.ipp>
#endif
