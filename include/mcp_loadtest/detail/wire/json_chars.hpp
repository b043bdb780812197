// Byte classes of JSON text, shared by the scanner (json_scan.hpp), the
// writer (jsonrpc_writer.hpp) and message excerpts (truncate_for_message.hpp),
// so none of them has to include another.
#pragma once

#include <cstdint>

namespace mcp_loadtest::detail {

/// True for the bytes a JSON string cannot hold as they are: '"', '\\' and controls.
inline constexpr struct json_escape_table_t {
    bool needs[256]{};
    constexpr json_escape_table_t() {
        for (int c = 0; c < 0x20; ++c) needs[c] = true;
        needs[static_cast<unsigned char>('"')] = true;
        needs[static_cast<unsigned char>('\\')] = true;
    }
} json_escape_table{};

/// Per UTF-8 lead byte: the sequence's length and its second byte's range, which
/// rules out overlongs (E0, F0), surrogates (ED) and code points above U+10FFFF
/// (F4), as RFC 3629 does. Length 0: ASCII, a continuation byte, C0/C1 or F5..FF.
inline constexpr struct utf8_lead_table_t {
    std::uint8_t length[256]{}, lo[256]{}, hi[256]{};
    constexpr utf8_lead_table_t() {
        for (int c = 0xC2; c <= 0xF4; ++c) {
            length[c] = static_cast<std::uint8_t>(c <= 0xDF ? 2 : c <= 0xEF ? 3 : 4);
            lo[c] = static_cast<std::uint8_t>(c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80);
            hi[c] = static_cast<std::uint8_t>(c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF);
        }
    }
} utf8_lead_table{};

}  // namespace mcp_loadtest::detail
