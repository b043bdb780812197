// A message as what it changes of the previous one: the recording's encoding.
// Load-test traffic repeats itself (the same call with another id), so a message is
// kept as the lengths it shares with the previous message in the same direction at
// its start and end, and the bytes between. An echo call and its reply shrink from
// ~180 bytes to a few, which matters more than it seems: on the virtual machines we
// measure on, fresh memory costs more than the copy into it (docs/benchmarks.md).
// No Asio, no allocation; compared a word at a time.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace mcp_loadtest::detail {

/// How many bytes `a` and `b` share at their start.
[[nodiscard]] inline std::size_t shared_prefix(std::string_view a, std::string_view b) noexcept {
    const std::size_t n = std::min(a.size(), b.size());
    std::size_t i = 0;
    if constexpr (std::endian::native == std::endian::little) {
        for (; i + 8 <= n; i += 8) {
            std::uint64_t x, y;
            std::memcpy(&x, a.data() + i, 8);
            std::memcpy(&y, b.data() + i, 8);
            if (x != y) return i + static_cast<std::size_t>(std::countr_zero(x ^ y)) / 8;
        }
    }
    while (i < n && a[i] == b[i]) ++i;
    return i;
}

/// How many bytes `a` and `b` share at their end, at most `limit` (so the end cannot
/// overlap what the start already shares).
[[nodiscard]] inline std::size_t shared_suffix(std::string_view a, std::string_view b, std::size_t limit) noexcept {
    const std::size_t n = std::min({a.size(), b.size(), limit});
    const char* ae = a.data() + a.size();
    const char* be = b.data() + b.size();
    std::size_t i = 0;
    if constexpr (std::endian::native == std::endian::little) {
        for (; i + 8 <= n; i += 8) {
            std::uint64_t x, y;
            std::memcpy(&x, ae - i - 8, 8);
            std::memcpy(&y, be - i - 8, 8);
            // The last byte is the most significant: equal high bytes are equal last bytes.
            if (x != y) return i + static_cast<std::size_t>(std::countl_zero(x ^ y)) / 8;
        }
    }
    while (i < n && ae[-1 - static_cast<std::ptrdiff_t>(i)] == be[-1 - static_cast<std::ptrdiff_t>(i)]) ++i;
    return i;
}

}  // namespace mcp_loadtest::detail
