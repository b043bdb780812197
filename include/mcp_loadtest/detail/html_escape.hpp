// Escaping text for the report forms: every server name, tool name and error sample is hostile
// input (a server chooses them), so each reaches HTML or Markdown only through these.
#pragma once

#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

/// Text for HTML element content and double- or single-quoted attribute values.
[[nodiscard]] inline std::string html_escape(std::string_view text) {
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

/// Text for one Markdown table cell (or an inline list item): no '|' ends the cell, no newline
/// ends the row, no HTML a renderer would run, no backtick, emphasis or link syntax that
/// changes how the rest reads. Control characters become spaces.
[[nodiscard]] inline std::string markdown_cell(std::string_view text, std::size_t max_chars = 300) {
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
