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

template <class Word>
[[nodiscard]] MCP_LOADTEST_ALWAYS_INLINE Word load_word(const char* p) noexcept {
    Word w;
    std::memcpy(&w, p, sizeof w);
    return w;
}

// The tail is not compared a byte at a time (a loop GCC does not unroll: ~20
// instructions a byte): the last eight bytes (or four, or two) are read in one
// load that overlaps the ones before, so any length costs a few compares.
[[nodiscard]] MCP_LOADTEST_ALWAYS_INLINE bool same_text(std::string_view a, std::string_view b) noexcept {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    const char* x = a.data();
    const char* y = b.data();
    if (n >= 8) {
        for (std::size_t i = 0; i + 8 < n; i += 8)
            if (load_word<std::uint64_t>(x + i) != load_word<std::uint64_t>(y + i)) return false;
        return load_word<std::uint64_t>(x + n - 8) == load_word<std::uint64_t>(y + n - 8);
    }
    if (n >= 4)
        return ((load_word<std::uint32_t>(x) ^ load_word<std::uint32_t>(y)) |
                (load_word<std::uint32_t>(x + n - 4) ^ load_word<std::uint32_t>(y + n - 4))) == 0;
    if (n >= 2)
        return ((load_word<std::uint16_t>(x) ^ load_word<std::uint16_t>(y)) |
                (load_word<std::uint16_t>(x + n - 2) ^ load_word<std::uint16_t>(y + n - 2))) == 0;
    return n == 0 || *x == *y;
}

}  // namespace mcp_loadtest::detail
