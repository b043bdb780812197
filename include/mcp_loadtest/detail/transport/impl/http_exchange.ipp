// Definitions of detail/transport/http_exchange.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/http_exchange.hpp>

#include <mcp_loadtest/detail/wire/wire_text.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL sse::parser& http_exchange::events() {
    if (!sse_events) sse_events = std::make_unique<sse::parser>(max_event_bytes);
    return *sse_events;
}

MCP_LOADTEST_DECL void append_http_header_value(std::string& out, std::string_view v) {
    bool safe = !v.empty() && v.front() != ' ' && v.back() != ' ' && v.rfind("=?base64?", 0) != 0;
    for (unsigned char c : v)
        if (c < 0x20 || c > 0x7e) safe = false;
    if (safe) {
        out += v;
        return;
    }
    out += "=?base64?";
    base64_append(out, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(v.data()), v.size()));
    out += "?=";
}

MCP_LOADTEST_DECL bool is_json_media_type(std::string_view content_type) {
    // "json" anywhere in the type and subtype, in any case; no copy (once per reply).
    if (ascii_iequals_lower(content_type, "application/json")) return true;  // what nearly every server sends
    const std::string_view type = content_type.substr(0, content_type.find(';'));
    // Only a 'j' can start it: look at the three bytes after each one.
    for (std::size_t i = 0; i + 4 <= type.size(); ++i)
        if ((type[i] | 0x20) == 'j' && (type[i + 1] | 0x20) == 's' && (type[i + 2] | 0x20) == 'o' &&
            (type[i + 3] | 0x20) == 'n')
            return true;
    return false;
}

}  // namespace mcp_loadtest::detail
