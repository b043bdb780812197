// Definitions of detail/wire/sha1.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/wire/sha1.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL sha1& sha1::update(std::string_view data) noexcept {
    total_ += data.size();
    if (buffered_ != 0) {
        const std::size_t room = block_.size() - buffered_;
        const std::size_t n = data.size() < room ? data.size() : room;
        std::memcpy(block_.data() + buffered_, data.data(), n);
        buffered_ += n;
        data.remove_prefix(n);
        if (buffered_ < block_.size()) return *this;
        compress(block_.data());
        buffered_ = 0;
    }
    for (; data.size() >= 64; data.remove_prefix(64)) compress(reinterpret_cast<const std::uint8_t*>(data.data()));
    std::memcpy(block_.data(), data.data(), data.size());
    buffered_ = data.size();
    return *this;
}

MCP_LOADTEST_DECL sha1::digest sha1::finish() noexcept {
    const std::uint64_t bits = total_ * 8;
    block_[buffered_++] = 0x80;
    if (buffered_ > 56) {
        std::memset(block_.data() + buffered_, 0, 64 - buffered_);
        compress(block_.data());
        buffered_ = 0;
    }
    std::memset(block_.data() + buffered_, 0, 56 - buffered_);
    for (std::size_t i = 0; i < 8; ++i) block_[56 + i] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
    compress(block_.data());
    digest out{};
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 4; ++j) out[4 * i + j] = static_cast<std::uint8_t>(h_[i] >> (24 - 8 * j));
    return out;
}

MCP_LOADTEST_DECL void sha1::compress(const std::uint8_t* p) noexcept {
    std::uint32_t w[80];
    for (int i = 0; i < 16; ++i)
        w[i] = (std::uint32_t{p[4 * i]} << 24) | (std::uint32_t{p[4 * i + 1]} << 16) |
               (std::uint32_t{p[4 * i + 2]} << 8) | std::uint32_t{p[4 * i + 3]};
    for (int i = 16; i < 80; ++i) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    std::uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4];
    for (int i = 0; i < 80; ++i) {
        std::uint32_t f, k;
        if (i < 20)
            f = (b & c) | (~b & d), k = 0x5A827999;
        else if (i < 40)
            f = b ^ c ^ d, k = 0x6ED9EBA1;
        else if (i < 60)
            f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
        else
            f = b ^ c ^ d, k = 0xCA62C1D6;
        const std::uint32_t t = rotl(a, 5) + f + e + k + w[i];
        e = d, d = c, c = rotl(b, 30), b = a, a = t;
    }
    h_[0] += a, h_[1] += b, h_[2] += c, h_[3] += d, h_[4] += e;
}

}  // namespace mcp_loadtest::detail
