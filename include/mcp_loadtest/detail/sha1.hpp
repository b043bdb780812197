// SHA-1 (FIPS 180-4), only for the WebSocket handshake's Sec-WebSocket-Accept check (RFC 6455
// §4.2.2). SHA-1 is broken for collision resistance, which does not matter there; a dozen
// lines here avoid depending on a crypto library for one hash per connection.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace mcp_loadtest::detail {

class sha1 {
public:
    using digest = std::array<std::uint8_t, 20>;

    sha1& update(std::string_view data) noexcept {
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

    /// The digest of everything given to update(); the object is spent afterwards.
    [[nodiscard]] digest finish() noexcept {
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

    [[nodiscard]] static digest of(std::string_view data) noexcept { return sha1{}.update(data).finish(); }

private:
    static constexpr std::uint32_t rotl(std::uint32_t v, int n) noexcept { return (v << n) | (v >> (32 - n)); }

    void compress(const std::uint8_t* p) noexcept {
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

    std::array<std::uint32_t, 5> h_{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    std::array<std::uint8_t, 64> block_{};
    std::size_t buffered_ = 0;
    std::uint64_t total_ = 0;
};

}  // namespace mcp_loadtest::detail
