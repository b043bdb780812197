// ASCII helpers shared by the wire-format codecs (url, http1, sse, websocket).
//
// Protocol tokens are ASCII and case-insensitive, so the locale-dependent <cctype> functions
// are both wrong and slow here. The excerpt helper is how every codec quotes a peer's bytes in
// an error message: bounded, with controls and non-ASCII escaped, so a binary or hostile peer
// cannot flood or garble a report.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

[[nodiscard]] constexpr char ascii_lower(char c) noexcept {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c;
}

[[nodiscard]] constexpr bool ascii_iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i] && ascii_lower(a[i]) != ascii_lower(b[i])) return false;  // folds only what differs
    return true;
}

/// Strips HTTP optional whitespace (SP, HTAB) from both ends.
[[nodiscard]] constexpr std::string_view trim_ows(std::string_view s) noexcept {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

/// True when the comma-separated header value `list` holds `token` (case-insensitive).
[[nodiscard]] constexpr bool list_has_token(std::string_view list, std::string_view token) noexcept {
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        if (ascii_iequals(trim_ows(list.substr(0, comma)), token)) return true;
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return false;
}

/// Appends at most `max` bytes of `bytes`, quoted, with controls and non-ASCII bytes escaped
/// (\r, \n, \t, \xNN), followed by how many bytes were left out.
MCP_LOADTEST_DECL void append_excerpt(std::string& out, std::string_view bytes, std::size_t max = 40);

[[nodiscard]] MCP_LOADTEST_DECL std::string excerpt(std::string_view bytes, std::size_t max = 40);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/impl/wire_text.ipp>
#endif
