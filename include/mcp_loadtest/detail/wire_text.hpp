// ASCII helpers shared by the wire-format codecs (url, http1, sse, websocket).
//
// Protocol tokens are ASCII and case-insensitive, so the locale-dependent <cctype> functions
// are both wrong and slow here. The excerpt helper is how every codec quotes a peer's bytes in
// an error message: bounded, with controls and non-ASCII escaped, so a binary or hostile peer
// cannot flood or garble a report.
#pragma once

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
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
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
inline void append_excerpt(std::string& out, std::string_view bytes, std::size_t max = 40) {
    static constexpr char hex[] = "0123456789abcdef";
    out += '\'';
    const std::size_t n = bytes.size() < max ? bytes.size() : max;
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c == '\r')
            out += "\\r";
        else if (c == '\n')
            out += "\\n";
        else if (c == '\t')
            out += "\\t";
        else if (c == '\\' || c == '\'')
            (out += '\\') += static_cast<char>(c);
        else if (c < 0x20 || c >= 0x7f)
            ((out += "\\x") += hex[c >> 4]) += hex[c & 15];
        else
            out += static_cast<char>(c);
    }
    out += '\'';
    if (n < bytes.size()) ((out += " (+") += std::to_string(bytes.size() - n)) += " more bytes)";
}

[[nodiscard]] inline std::string excerpt(std::string_view bytes, std::size_t max = 40) {
    std::string out;
    append_excerpt(out, bytes, max);
    return out;
}

}  // namespace mcp_loadtest::detail
