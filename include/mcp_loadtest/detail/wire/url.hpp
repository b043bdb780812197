// Server URLs for the network transports: http, https, ws and wss only.
//
// Parsed once per run (and once per legacy-SSE `endpoint` event), so clarity beats speed.
// Errors are values: parse_url() returns nullopt and words the problem for the person who
// wrote the URL. Userinfo (`user:pass@`) is accepted and kept for the transport, but it never
// appears in redacted() or in any error message, since URLs end up in logs and reports.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/wire/wire_text.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

/// 80 for http/ws, 443 for https/wss, 0 for anything else. `scheme` must be lower case.
[[nodiscard]] constexpr std::uint16_t default_port_for(std::string_view scheme) noexcept {
    if (scheme == "http" || scheme == "ws") return 80;
    if (scheme == "https" || scheme == "wss") return 443;
    return 0;
}

struct url {
    std::string scheme;     // lower case: http, https, ws or wss
    std::string userinfo;   // "user:pass" as written (still percent-encoded); secret, never printed
    std::string host;       // lower case; an IPv6 literal without brackets (what a resolver takes)
    std::string port_text;  // decimal port, the scheme's default when the URL has none
    std::uint16_t port = 0;
    std::string target = "/";  // path and query, never empty; the fragment is dropped

    [[nodiscard]] bool secure() const noexcept { return scheme == "https" || scheme == "wss"; }
    [[nodiscard]] bool ipv6_literal() const noexcept { return host.find(':') != std::string::npos; }
    [[nodiscard]] bool default_port() const noexcept { return port == default_port_for(scheme); }

    /// The Host header: the host (bracketed if IPv6), with ":port" unless it is the default.
    [[nodiscard]] MCP_LOADTEST_DECL std::string host_header() const;

    /// scheme://host[:port], for same-origin checks and for resolving references.
    [[nodiscard]] std::string origin() const { return scheme + "://" + host_header(); }

    /// The URL without its userinfo: safe for logs, reports and error messages.
    [[nodiscard]] std::string redacted() const { return origin() + target; }

    friend bool operator==(const url&, const url&) = default;
};

namespace url_detail {

// RFC 3986 host characters: unreserved, sub-delims and '%' (percent-encoding).
[[nodiscard]] constexpr bool host_char(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("-._~%!$&'()*+,;=").find(c) != std::string_view::npos;
}

[[nodiscard]] constexpr bool scheme_char(char c, bool first) noexcept {
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    return first ? alpha : alpha || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

[[nodiscard]] constexpr std::string_view trim_space(std::string_view s) noexcept {
    while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
    while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
    return s;
}

// Length of the scheme when `s` starts with "scheme:", else 0.
[[nodiscard]] constexpr std::size_t scheme_length(std::string_view s) noexcept {
    std::size_t i = 0;
    while (i < s.size() && scheme_char(s[i], i == 0)) ++i;
    return i > 0 && i < s.size() && s[i] == ':' ? i : 0;
}

// The text of a URL that may not parse, with any userinfo cut out, for error messages.
[[nodiscard]] MCP_LOADTEST_DECL std::string redact_text(std::string_view text);

MCP_LOADTEST_DECL bool fail(std::string* error, std::string_view text, std::string_view why);

// Path and query must already be percent-encoded: a space or control character here is almost
// always a copy-paste accident, and sending it would make the request line malformed.
MCP_LOADTEST_DECL bool check_target(std::string_view target, std::string_view text, std::string* error);

// RFC 3986 §5.2.4, on a path that starts with '/'.
[[nodiscard]] MCP_LOADTEST_DECL std::string remove_dot_segments(std::string_view in);

}  // namespace url_detail

/// Parses an absolute http, https, ws or wss URL. Surrounding whitespace is ignored; the
/// fragment is dropped; an empty path becomes "/". On failure returns nullopt and, if `error`
/// is given, an actionable message (which never contains the userinfo).
[[nodiscard]] MCP_LOADTEST_DECL std::optional<url> parse_url(std::string_view text, std::string* error = nullptr);

/// Resolves a reference against `base` (RFC 3986 §5.2): an absolute URL, "//host/path",
/// "/path?query", "?query" or a relative path ("message?x" next to the base's last segment).
/// This is what the legacy HTTP+SSE transport's `endpoint` event needs. The result keeps the
/// base's userinfo when it keeps its authority. Errors as for parse_url().
[[nodiscard]] MCP_LOADTEST_DECL std::optional<url> resolve_relative(const url& base, std::string_view ref,
                                                                    std::string* error = nullptr);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/wire/impl/url.ipp>
#endif
