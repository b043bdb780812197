// Definitions of detail/detectors/payload_text.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/detectors/payload_text.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::vector<std::size_t> payload_ladder(std::size_t min_bytes, std::size_t max_bytes, double growth) {
    std::vector<std::size_t> sizes;
    double next = static_cast<double>(min_bytes);
    while (next < static_cast<double>(max_bytes)) {
        sizes.push_back(static_cast<std::size_t>(next));
        next *= growth;
    }
    sizes.push_back(max_bytes);
    return sizes;
}

MCP_LOADTEST_DECL std::string payload_text(std::size_t bytes) {
    static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    std::string text(bytes, '\0');
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    for (std::size_t i = 0; i < bytes; ++i) {
        state ^= state << 13;  // xorshift64
        state ^= state >> 7;
        state ^= state << 17;
        text[i] = alphabet[state % (sizeof alphabet - 1)];
    }
    return text;
}

MCP_LOADTEST_DECL std::string arguments_with_payload(const std::string& base_object_text, std::string_view name,
                                          std::string_view payload) {
    std::string out;
    out.reserve(base_object_text.size() + name.size() + payload.size() + 8);
    const bool empty = base_object_text == "{}";
    out.append(base_object_text, 0, base_object_text.size() - 1);  // without the closing brace
    if (!empty) out += ',';
    out += json(std::string(name)).dump();
    out += ":\"";
    out += payload;
    out += "\"}";
    return out;
}

MCP_LOADTEST_DECL std::string base_arguments_text(const json& base, std::string_view name) {
    if (!base.is_null() && !base.is_object())
        throw std::invalid_argument("payload_sweep: the base arguments must be a JSON object (got " +
                                    std::string(base.type_name()) + "); pass mlt::args(\"key\", value, ...)");
    json copy = base.is_null() ? json::object() : base;
    copy.erase(std::string(name));
    return copy.dump();
}

}  // namespace mcp_loadtest::detail
