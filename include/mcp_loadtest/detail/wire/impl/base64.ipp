// Definitions of detail/wire/base64.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/wire/base64.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void base64_append(std::string& out, std::span<const std::uint8_t> in) {
    out.reserve(out.size() + (in.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= in.size(); i += 3) {
        const std::uint32_t v = (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8) | in[i + 2];
        const char quad[4] = {base64_alphabet[v >> 18], base64_alphabet[(v >> 12) & 63], base64_alphabet[(v >> 6) & 63],
                              base64_alphabet[v & 63]};
        out.append(quad, 4);
    }
    if (i < in.size()) {
        const bool two = i + 1 < in.size();
        const std::uint32_t v = (std::uint32_t{in[i]} << 16) | (two ? std::uint32_t{in[i + 1]} << 8 : 0);
        out += base64_alphabet[(v >> 18) & 63];
        out += base64_alphabet[(v >> 12) & 63];
        out += two ? base64_alphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
}

MCP_LOADTEST_DECL std::string base64_encode(std::span<const std::uint8_t> in) {
    std::string out;
    base64_append(out, in);
    return out;
}

MCP_LOADTEST_DECL std::string base64url_encode(std::span<const std::uint8_t> in) {
    std::string out = base64_encode(in);
    while (!out.empty() && out.back() == '=') out.pop_back();
    for (auto& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
    return out;
}

MCP_LOADTEST_DECL std::optional<std::vector<std::uint8_t>> base64_decode(std::string_view in,
                                                                         std::string* error) {
    static constexpr struct table_t {
        std::int8_t value[256]{};
        constexpr table_t() {
            for (auto& v : value) v = -1;
            for (int i = 0; i < 64; ++i)
                value[static_cast<unsigned char>(base64_alphabet[i])] = static_cast<std::int8_t>(i);
        }
    } table{};
    while (!in.empty() && in.back() == '=') in.remove_suffix(1);
    if (in.size() % 4 == 1) {
        if (error) *error = "base64 text has an impossible length (" + std::to_string(in.size()) + " characters)";
        return std::nullopt;
    }
    std::vector<std::uint8_t> out;
    out.reserve(in.size() * 3 / 4);
    std::uint32_t acc = 0;
    int bits = 0;
    for (const char c : in) {
        const int v = table.value[static_cast<unsigned char>(c)];
        if (v < 0) {
            if (error) *error = "invalid base64 character (code " + std::to_string(static_cast<unsigned char>(c)) + ")";
            return std::nullopt;
        }
        acc = (acc << 6) | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<std::uint8_t>(acc >> bits));
        }
    }
    return out;
}

}  // namespace mcp_loadtest::detail
