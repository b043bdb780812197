// Definitions of detail/wire/www_authenticate.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/wire/www_authenticate.hpp>


namespace mcp_loadtest::detail {

namespace www_authenticate_detail {

inline bool tchar(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}
inline bool token68_char(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("-._~+/").find(c) != std::string_view::npos;
}
inline void skip_space(std::string_view s, std::size_t& i) noexcept {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
}
inline std::string_view read_token(std::string_view s, std::size_t& i) noexcept {
    const std::size_t start = i;
    while (i < s.size() && tchar(s[i])) ++i;
    return s.substr(start, i - start);
}
// A quoted-string at s[i] == '"'; false when it never closes.
inline bool read_quoted(std::string_view s, std::size_t& i, std::string& out) {
    ++i;
    while (i < s.size()) {
        const char c = s[i++];
        if (c == '"') return true;
        if (c == '\\') {
            if (i >= s.size()) return false;
            out += s[i++];
        } else {
            out += c;
        }
    }
    return false;
}
inline std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

// Whether an auth-param ("name = value") starts at s[i].
inline bool param_starts(std::string_view s, std::size_t i) {
    const std::string_view name = read_token(s, i);
    if (name.empty()) return false;
    skip_space(s, i);
    if (i >= s.size() || s[i] != '=') return false;
    ++i;
    skip_space(s, i);
    return i < s.size() && (s[i] == '"' || (tchar(s[i]) && s[i] != '='));
}

}  // namespace www_authenticate_detail

MCP_LOADTEST_DECL std::optional<std::string> auth_challenge::param(std::string_view name) const {
    for (const auto& [n, v] : params)
        if (n == name) return v;
    return std::nullopt;
}

MCP_LOADTEST_DECL std::vector<auth_challenge> parse_www_authenticate(std::string_view s) {
    using namespace www_authenticate_detail;
    std::vector<auth_challenge> out;
    std::size_t i = 0;
    for (;;) {
        // Empty list elements (", ,") are allowed between challenges.
        while (i < s.size() && (s[i] == ',' || s[i] == ' ' || s[i] == '\t')) ++i;
        if (i >= s.size()) break;
        const std::string_view scheme = read_token(s, i);
        if (scheme.empty()) break;  // garbage: keep what was read
        auth_challenge ch;
        ch.scheme.assign(scheme);
        skip_space(s, i);
        if (i < s.size() && s[i] != ',' && !param_starts(s, i)) {
            // token68: its characters, then '=' padding, then a comma or the end.
            const std::size_t start = i;
            while (i < s.size() && token68_char(s[i])) ++i;
            while (i < s.size() && s[i] == '=') ++i;
            ch.token68.assign(s.substr(start, i - start));
            skip_space(s, i);
            out.push_back(std::move(ch));
            if (i < s.size() && s[i] != ',') break;
            continue;
        }
        // auth-params, comma-separated, until an element that is not one (the next challenge).
        for (;;) {
            while (i < s.size() && (s[i] == ',' || s[i] == ' ' || s[i] == '\t')) ++i;
            if (i >= s.size() || !param_starts(s, i)) break;
            const std::string_view name = read_token(s, i);
            skip_space(s, i);
            ++i;  // '='
            skip_space(s, i);
            std::string value;
            if (s[i] == '"') {
                if (!read_quoted(s, i, value)) {  // an unclosed quote: the rest is unreadable
                    ch.params.emplace_back(lower(name), std::move(value));
                    out.push_back(std::move(ch));
                    return out;
                }
            } else {
                value.assign(read_token(s, i));
            }
            ch.params.emplace_back(lower(name), std::move(value));
            skip_space(s, i);
            if (i < s.size() && s[i] != ',') {  // neither a comma nor the end: malformed
                out.push_back(std::move(ch));
                return out;
            }
        }
        out.push_back(std::move(ch));
    }
    return out;
}

MCP_LOADTEST_DECL std::optional<auth_challenge> find_challenge(std::string_view value, std::string_view scheme) {
    using www_authenticate_detail::lower;
    for (auto& ch : parse_www_authenticate(value))
        if (lower(ch.scheme) == lower(scheme)) return std::move(ch);
    return std::nullopt;
}

}  // namespace mcp_loadtest::detail
