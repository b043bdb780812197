// HTTP dates (RFC 9110 §5.6.7) and the Retry-After header they appear in (§10.2.3). A recipient
// must read all three date forms: the IMF-fixdate every server should send, and the obsolete
// RFC 850 and asctime forms. Asio-free and clock-free (the caller says what time it is).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mcp_loadtest::detail {

/// Seconds since the Unix epoch of an HTTP date:
///   Sun, 06 Nov 1994 08:49:37 GMT     (IMF-fixdate)
///   Sunday, 06-Nov-94 08:49:37 GMT    (RFC 850; a two-digit year within 50 years of `now_unix`)
///   Sun Nov  6 08:49:37 1994          (asctime)
/// Empty when `text` is none of them or names no real instant (31 Feb, 25:00).
[[nodiscard]] MCP_LOADTEST_DECL std::optional<std::int64_t> parse_http_date(std::string_view text,
                                                                           std::int64_t now_unix);

/// How long a Retry-After value asks to wait: delay-seconds, or an HTTP date less `now_unix`
/// (0 when it is already past). Empty when unreadable.
[[nodiscard]] MCP_LOADTEST_DECL std::optional<std::chrono::seconds> parse_retry_after(std::string_view value,
                                                                                    std::int64_t now_unix);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/wire/impl/http_date.ipp>
#endif
