// SHA-256 (FIPS 180-4), for PKCE's S256 code challenge (RFC 7636 §4.2): one hash per
// authorization, with no crypto library needed (builds without OpenSSL authorize too).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mcp_loadtest::detail {

class sha256 {
public:
    using digest = std::array<std::uint8_t, 32>;

    MCP_LOADTEST_DECL sha256& update(std::string_view data) noexcept;

    /// The digest of everything given to update(); the object is spent afterwards.
    [[nodiscard]] MCP_LOADTEST_DECL digest finish() noexcept;

    [[nodiscard]] static digest of(std::string_view data) noexcept { return sha256{}.update(data).finish(); }

private:
    MCP_LOADTEST_DECL void compress(const std::uint8_t* p) noexcept;

    std::array<std::uint32_t, 8> h_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    std::array<std::uint8_t, 64> block_{};
    std::size_t buffered_ = 0;
    std::uint64_t total_ = 0;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/wire/impl/sha256.ipp>
#endif
