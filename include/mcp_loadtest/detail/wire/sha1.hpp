// SHA-1 (FIPS 180-4), only for the WebSocket handshake's Sec-WebSocket-Accept check (RFC 6455
// §4.2.2). SHA-1 is broken for collision resistance, which does not matter there; a dozen
// lines here avoid depending on a crypto library for one hash per connection.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace mcp_loadtest::detail {

class sha1 {
public:
    using digest = std::array<std::uint8_t, 20>;

    MCP_LOADTEST_DECL sha1& update(std::string_view data) noexcept;

    /// The digest of everything given to update(); the object is spent afterwards.
    [[nodiscard]] MCP_LOADTEST_DECL digest finish() noexcept;

    [[nodiscard]] static digest of(std::string_view data) noexcept { return sha1{}.update(data).finish(); }

private:
    static constexpr std::uint32_t rotl(std::uint32_t v, int n) noexcept { return (v << n) | (v >> (32 - n)); }

    MCP_LOADTEST_DECL void compress(const std::uint8_t* p) noexcept;

    std::array<std::uint32_t, 5> h_{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    std::array<std::uint8_t, 64> block_{};
    std::size_t buffered_ = 0;
    std::uint64_t total_ = 0;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/wire/impl/sha1.ipp>
#endif
