// Definitions of detail/wire/wire_text.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/wire/wire_text.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void append_excerpt(std::string& out, std::string_view bytes, std::size_t max) {
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

MCP_LOADTEST_DECL std::string excerpt(std::string_view bytes, std::size_t max) {
    std::string out;
    append_excerpt(out, bytes, max);
    return out;
}

}  // namespace mcp_loadtest::detail
