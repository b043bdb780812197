// Definitions of detail/text/truncate_for_message.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/text/truncate_for_message.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string truncate_for_message(std::string_view s, std::size_t n) {
    static constexpr char hex[] = "0123456789abcdef";
    const std::size_t stop = s.size() < n ? s.size() : n;
    std::string out;
    out.reserve(stop + 3);
    std::size_t i = 0;
    while (i < stop) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            out += c < 0x20 && c != '\t' ? ' ' : static_cast<char>(c);
            ++i;
            continue;
        }
        const std::size_t len = utf8_lead_table.length[c];
        bool valid = len != 0 && i + len <= s.size();
        if (valid) {
            const auto second = static_cast<unsigned char>(s[i + 1]);
            valid = second >= utf8_lead_table.lo[c] && second <= utf8_lead_table.hi[c];
            for (std::size_t k = 2; valid && k < len; ++k) valid = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
        }
        if (!valid) {
            ((out += "\\x") += hex[c >> 4]) += hex[c & 15];
            ++i;
        } else if (i + len > stop) {
            break;
        } else {
            out.append(s.substr(i, len));
            i += len;
        }
    }
    if (i < s.size()) out += "...";
    return out;
}

}  // namespace mcp_loadtest::detail
