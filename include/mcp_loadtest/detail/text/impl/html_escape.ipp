// Definitions of detail/text/html_escape.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/text/html_escape.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (const char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            case '\0': out += "&#xFFFD;"; break;
            default: out += c;
        }
    }
    return out;
}

MCP_LOADTEST_DECL std::string markdown_cell(std::string_view text, std::size_t max_chars) {
    std::string out;
    const bool cut = text.size() > max_chars;
    if (cut) {
        text = text.substr(0, max_chars);
        while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80) text.remove_suffix(1);
        if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xC0) text.remove_suffix(1);  // a lead byte
    }
    for (const char c : text) {
        switch (c) {
            case '|': out += "\\|"; break;
            case '\n': case '\r': case '\t': case '\v': case '\f': out += ' '; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '&': out += "&amp;"; break;
            case '\\': case '`': case '*': case '_': case '[': case ']': case '#': case '~':
                out += '\\';
                out += c;
                break;
            default: out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
        }
    }
    if (cut) out += "…";
    return out;
}

}  // namespace mcp_loadtest::detail
