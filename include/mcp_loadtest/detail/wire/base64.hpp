// Base64 (RFC 4648): the WebSocket handshake keys, the text form of HdrHistogram logs and
// HTTP Basic credentials; base64url for JWTs and PKCE. Decoding reports errors as values
// (optional + message) so both a protocol codec and the histogram reader can word the
// failure for their own context.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

inline constexpr char base64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends the padded encoding of `in` to `out`.
MCP_LOADTEST_DECL void base64_append(std::string& out, std::span<const std::uint8_t> in);

[[nodiscard]] MCP_LOADTEST_DECL std::string base64_encode(std::span<const std::uint8_t> in);

/// The URL-safe alphabet ('-' and '_') without padding (RFC 4648 §5): JWTs and PKCE challenges.
[[nodiscard]] MCP_LOADTEST_DECL std::string base64url_encode(std::span<const std::uint8_t> in);

/// Decodes the standard alphabet; padding is optional, anything else (whitespace, the URL-safe
/// alphabet) is rejected. On failure returns nullopt and, if `error` is given, says why.
[[nodiscard]] MCP_LOADTEST_DECL std::optional<std::vector<std::uint8_t>> base64_decode(std::string_view in,
                                                                                       std::string* error = nullptr);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/wire/impl/base64.ipp>
#endif
