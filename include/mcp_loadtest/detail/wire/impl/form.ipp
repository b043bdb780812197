// Definitions of detail/wire/form.hpp (header-only: included by it; separate compilation:
// compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/wire/form.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void percent_encode_append(std::string& out, std::string_view in) {
    static constexpr char hex[] = "0123456789ABCDEF";
    for (const char ch : in) {
        const auto c = static_cast<unsigned char>(ch);
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
            c == '_' || c == '~') {
            out += ch;
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
}

MCP_LOADTEST_DECL std::string percent_encode(std::string_view in) {
    std::string out;
    percent_encode_append(out, in);
    return out;
}

MCP_LOADTEST_DECL std::string form_encode(const form_fields& fields) {
    std::string out;
    for (const auto& [name, value] : fields) {
        if (!out.empty()) out += '&';
        percent_encode_append(out, name);
        out += '=';
        percent_encode_append(out, value);
    }
    return out;
}

namespace form_detail {
inline int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
inline std::string decode(std::string_view in) {
    std::string out;
    out.reserve(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (c == '+') {
            out += ' ';
        } else if (c == '%' && i + 2 < in.size() && hex_value(in[i + 1]) >= 0 && hex_value(in[i + 2]) >= 0) {
            out += static_cast<char>(hex_value(in[i + 1]) * 16 + hex_value(in[i + 2]));
            i += 2;
        } else {
            out += c;
        }
    }
    return out;
}
}  // namespace form_detail

MCP_LOADTEST_DECL form_fields parse_form(std::string_view text) {
    form_fields out;
    while (!text.empty()) {
        const std::size_t amp = text.find('&');
        const std::string_view piece = text.substr(0, amp);
        text = amp == std::string_view::npos ? std::string_view{} : text.substr(amp + 1);
        if (piece.empty()) continue;
        const std::size_t eq = piece.find('=');
        out.emplace_back(form_detail::decode(piece.substr(0, eq)),
                         eq == std::string_view::npos ? std::string() : form_detail::decode(piece.substr(eq + 1)));
    }
    return out;
}

MCP_LOADTEST_DECL std::optional<std::string> form_value(const form_fields& fields, std::string_view name) {
    for (const auto& [n, v] : fields)
        if (n == name) return v;
    return std::nullopt;
}

}  // namespace mcp_loadtest::detail
