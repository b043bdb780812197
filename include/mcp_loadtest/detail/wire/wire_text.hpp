// ASCII helpers shared by the wire-format codecs (url, http1, sse, websocket).
//
// Protocol tokens are ASCII and case-insensitive, so the locale-dependent <cctype> functions
// are both wrong and slow here. The excerpt helper is how every codec quotes a peer's bytes in
// an error message: bounded, with controls and non-ASCII escaped, so a binary or hostile peer
// cannot flood or garble a report.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/wire/same_text.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace mcp_loadtest::detail {

[[nodiscard]] constexpr char ascii_lower(char c) noexcept {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c;
}

namespace wire_text_impl {

// ascii_lower on eight bytes at once: 'A'..'Z' get 0x20 added, every other byte (non-ASCII
// included) is left as it is. No byte's arithmetic carries into the next.
inline std::uint64_t fold8(std::uint64_t w) noexcept {
    constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = ones * 0x80;
    const std::uint64_t low7 = w & ~highs;
    const std::uint64_t above_z = low7 + ones * (0x7f - 'Z');  // top bit: above 'Z'
    const std::uint64_t from_a = low7 + ones * (0x80 - 'A');   // top bit: 'A' or above
    return w | ((from_a & ~above_z & ~w & highs) >> 2);
}

}  // namespace wire_text_impl

[[nodiscard]] constexpr bool ascii_iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    const std::size_t n = a.size();
    if (!std::is_constant_evaluated() && n >= 8) {
        // Header names are compared on every response: eight bytes per step, the last step
        // overlapping the one before it.
        using wire_text_impl::fold8;
        const auto word = [](const char* p) { return load_word<std::uint64_t>(p); };
        // Words that match as sent (most do: servers write media types and many names in
        // lower case) skip the folding.
        const auto same = [](std::uint64_t x, std::uint64_t y) { return x == y || fold8(x) == fold8(y); };
        for (std::size_t i = 0; i + 8 < n; i += 8)
            if (!same(word(a.data() + i), word(b.data() + i))) return false;
        return same(word(a.data() + n - 8), word(b.data() + n - 8));
    }
    for (std::size_t i = 0; i < n; ++i)
        if (a[i] != b[i] && ascii_lower(a[i]) != ascii_lower(b[i])) return false;  // folds only what differs
    return true;
}

/// ascii_iequals against a protocol constant already in lower case: only `a` is folded, and only
/// in the words where it differs. Inline: the framing headers are matched on every response.
[[nodiscard]] MCP_LOADTEST_ALWAYS_INLINE bool ascii_iequals_lower(std::string_view a, std::string_view lower) noexcept {
    const std::size_t n = a.size();
    if (n != lower.size()) return false;
    if (n >= 8) {
        using wire_text_impl::fold8;
        const auto same = [](const char* x, const char* y) {
            const auto w = load_word<std::uint64_t>(x);
            const auto l = load_word<std::uint64_t>(y);
            return w == l || fold8(w) == l;
        };
        for (std::size_t i = 0; i + 8 < n; i += 8)
            if (!same(a.data() + i, lower.data() + i)) return false;
        return same(a.data() + n - 8, lower.data() + n - 8);
    }
    for (std::size_t i = 0; i < n; ++i)
        if (a[i] != lower[i] && ascii_lower(a[i]) != lower[i]) return false;
    return true;
}

/// How many of the eight bytes of `w` (in memory order) are letters, digits or '-', counted
/// from the first: the bytes nearly every header name is made of.
[[nodiscard]] MCP_LOADTEST_ALWAYS_INLINE std::size_t common_name_bytes(std::uint64_t w) noexcept {
    constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = ones * 0x80;
    // Each byte's top bit says whether it is in a range; the low seven bits leave room for the
    // additions, so no byte carries into the next, and non-ASCII bytes are masked out at the end.
    const std::uint64_t low7 = w & ~highs;
    const std::uint64_t folded = low7 | (ones * 0x20);  // 'A'..'Z' onto 'a'..'z', and nothing else onto them
    const std::uint64_t letter = (folded + ones * (0x80 - 'a')) & ~(folded + ones * (0x80 - 'z' - 1));
    const std::uint64_t digit = (low7 + ones * (0x80 - '0')) & ~(low7 + ones * (0x80 - '9' - 1));
    const std::uint64_t dash = ~((low7 ^ (ones * '-')) + ones * 0x7f);
    const std::uint64_t bad = (~(letter | digit | dash) & highs) | (w & highs);
    if (bad == 0) return 8;
    static_assert(std::endian::native == std::endian::little || std::endian::native == std::endian::big);
    if constexpr (std::endian::native == std::endian::little) return static_cast<std::size_t>(std::countr_zero(bad)) / 8;
    else return static_cast<std::size_t>(std::countl_zero(bad)) / 8;
}

/// Strips HTTP optional whitespace (SP, HTAB) from both ends.
[[nodiscard]] constexpr std::string_view trim_ows(std::string_view s) noexcept {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

/// True when the comma-separated header value `list` holds `token` (case-insensitive).
[[nodiscard]] constexpr bool list_has_token(std::string_view list, std::string_view token) noexcept {
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        if (ascii_iequals(trim_ows(list.substr(0, comma)), token)) return true;
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return false;
}

/// Appends at most `max` bytes of `bytes`, quoted, with controls and non-ASCII bytes escaped
/// (\r, \n, \t, \xNN), followed by how many bytes were left out.
MCP_LOADTEST_DECL void append_excerpt(std::string& out, std::string_view bytes, std::size_t max = 40);

[[nodiscard]] MCP_LOADTEST_DECL std::string excerpt(std::string_view bytes, std::size_t max = 40);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/wire/impl/wire_text.ipp>
#endif
