// Equality of the short names compared on every call (method, tool): inline, eight
// bytes at a time. std::string_view's operator== is an out-of-line call into memcmp
// where GCC declines to inline it, dearer than the comparison of a ten-byte name.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace mcp_loadtest::detail {

[[nodiscard]] MCP_LOADTEST_ALWAYS_INLINE bool same_text(std::string_view a, std::string_view b) noexcept {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t x, y;
        std::memcpy(&x, a.data() + i, 8);
        std::memcpy(&y, b.data() + i, 8);
        if (x != y) return false;
    }
    for (; i < n; ++i)
        if (a[i] != b[i]) return false;
    return true;
}

}  // namespace mcp_loadtest::detail
