// Definitions of histogram/hdr_v2.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/histogram/hdr_v2.hpp>

#include <mcp_loadtest/detail/wire/base64.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {
namespace detail {

MCP_LOADTEST_DECL void put_be(std::vector<std::uint8_t>& out, std::uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

MCP_LOADTEST_DECL std::uint64_t get_be(std::span<const std::uint8_t> in, std::size_t at, int bytes) noexcept {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | in[at + static_cast<std::size_t>(i)];
    return v;
}

MCP_LOADTEST_DECL std::uint32_t get_le16(std::span<const std::uint8_t> in, std::size_t at) noexcept {
    return std::uint32_t{in[at]} | (std::uint32_t{in[at + 1]} << 8);
}

MCP_LOADTEST_DECL void put_zigzag(std::vector<std::uint8_t>& out, std::int64_t signed_value) {
    std::uint64_t v = (static_cast<std::uint64_t>(signed_value) << 1) ^ static_cast<std::uint64_t>(signed_value >> 63);
    for (int i = 0; i < 8; ++i) {
        if ((v >> 7) == 0) {
            out.push_back(static_cast<std::uint8_t>(v));
            return;
        }
        out.push_back(static_cast<std::uint8_t>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<std::uint8_t>(v));  // 9th byte: all 8 remaining bits
}

MCP_LOADTEST_DECL std::uint32_t adler32(std::span<const std::uint8_t> data) noexcept {
    std::uint32_t a = 1, b = 0;
    while (!data.empty()) {
        const std::size_t n = std::min<std::size_t>(data.size(), 5552);  // largest n without 32-bit overflow
        for (std::size_t i = 0; i < n; ++i) {
            a += data[i];
            b += a;
        }
        a %= 65521;
        b %= 65521;
        data = data.subspan(n);
    }
    return (b << 16) | a;
}

MCP_LOADTEST_DECL void put_zlib_stored(std::vector<std::uint8_t>& out, std::span<const std::uint8_t> data) {
    out.push_back(0x78);
    out.push_back(0x01);
    std::span<const std::uint8_t> rest = data;
    do {
        const std::size_t n = std::min<std::size_t>(rest.size(), 65535);
        const bool final_block = n == rest.size();
        out.push_back(final_block ? 0x01 : 0x00);  // BFINAL, BTYPE = 00 (stored), then byte-aligned
        out.push_back(static_cast<std::uint8_t>(n & 0xff));  // LEN, little-endian
        out.push_back(static_cast<std::uint8_t>(n >> 8));
        out.push_back(static_cast<std::uint8_t>(~n & 0xff));  // NLEN = ~LEN
        out.push_back(static_cast<std::uint8_t>((~n >> 8) & 0xff));
        out.insert(out.end(), rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(n));
        rest = rest.subspan(n);
    } while (!rest.empty());
    put_be(out, adler32(data), 4);
}

MCP_LOADTEST_DECL void bad_hdr(const std::string& why) {
    throw std::invalid_argument("HdrHistogram V2 decoding: " + why);
}

MCP_LOADTEST_DECL std::vector<std::uint8_t> inflate_stored(std::span<const std::uint8_t> in) {
    if (in.size() < 6) bad_hdr("zlib stream of " + std::to_string(in.size()) + " bytes is too short");
    if ((in[0] & 0x0f) != 8 || (in[0] >> 4) > 7 || ((in[0] << 8) | in[1]) % 31 != 0 || (in[1] & 0x20) != 0)
        bad_hdr("not a zlib stream (header bytes " + std::to_string(in[0]) + ", " + std::to_string(in[1]) + ")");
    std::vector<std::uint8_t> out;
    std::size_t at = 2;
    for (bool final_block = false; !final_block;) {
        if (at + 5 > in.size()) bad_hdr("truncated zlib stream");
        final_block = (in[at] & 1) != 0;
        const int type = (in[at] >> 1) & 3;
        if (type != 0)
            bad_hdr("the zlib stream uses deflate block type " + std::to_string(type) +
                    "; only stored blocks (as to_hdr_base64 writes) can be read without zlib");
        const auto len = static_cast<std::size_t>(detail::get_le16(in, at + 1));
        const auto nlen = static_cast<std::size_t>(detail::get_le16(in, at + 3));
        if ((len ^ 0xffff) != nlen) bad_hdr("corrupt stored block length");
        at += 5;
        if (at + len > in.size()) bad_hdr("truncated stored block");
        out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(at),
                   in.begin() + static_cast<std::ptrdiff_t>(at + len));
        at += len;
    }
    if (at + 4 != in.size()) bad_hdr("zlib stream does not end with its adler32 checksum");
    if (get_be(in, at, 4) != adler32(out)) bad_hdr("adler32 checksum mismatch");
    return out;
}

}  // namespace detail

MCP_LOADTEST_DECL std::vector<std::uint8_t> encode_hdr_v2(const latency_histogram& h,
                                                          hdr_encoding encoding) {
    using H = latency_histogram;
    // Like fillBufferFromCountsArray: counts up to the bucket of the max value (one entry when empty).
    const std::size_t limit = h.empty() ? 1 : H::index_of(h.max()) + 1;
    std::vector<std::uint8_t> payload;
    for (std::size_t i = 0; i < limit;) {
        const std::uint64_t c = h.count_at_index(i++);
        if (c != 0) {
            if (c > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                throw std::invalid_argument("HdrHistogram V2 encoding: bucket " + std::to_string(i - 1) + " holds " +
                                            std::to_string(c) + " counts, more than the format's 2^63-1");
            detail::put_zigzag(payload, static_cast<std::int64_t>(c));
            continue;
        }
        std::int64_t zeros = 1;
        while (i < limit && h.count_at_index(i) == 0) {
            ++zeros;
            ++i;
        }
        detail::put_zigzag(payload, zeros > 1 ? -zeros : 0);
    }
    std::vector<std::uint8_t> raw;
    raw.reserve(40 + payload.size());
    detail::put_be(raw, hdr_v2_encoding_cookie_base | 0x10, 4);
    detail::put_be(raw, payload.size(), 4);
    detail::put_be(raw, 0, 4);  // normalizing index offset
    detail::put_be(raw, H::significant_digits, 4);
    detail::put_be(raw, H::lowest_discernible_us, 8);
    detail::put_be(raw, H::highest_trackable_us, 8);
    detail::put_be(raw, std::bit_cast<std::uint64_t>(1.0), 8);  // integer-to-double conversion ratio
    raw.insert(raw.end(), payload.begin(), payload.end());
    if (encoding == hdr_encoding::uncompressed) return raw;

    std::vector<std::uint8_t> out;
    out.reserve(raw.size() + raw.size() / 65535 * 5 + 19);
    detail::put_be(out, hdr_v2_compressed_cookie_base | 0x10, 4);
    detail::put_be(out, 0, 4);  // zlib stream length, filled in below
    detail::put_zlib_stored(out, raw);
    const std::size_t zlib_len = out.size() - 8;
    for (std::size_t k = 0; k < 4; ++k) out[4 + k] = static_cast<std::uint8_t>(zlib_len >> (24 - 8 * k));
    return out;
}

MCP_LOADTEST_DECL latency_histogram decode_hdr_v2(std::span<const std::uint8_t> in) {
    using H = latency_histogram;
    if (in.size() < 8) detail::bad_hdr("input of " + std::to_string(in.size()) + " bytes is too short");
    const auto cookie = static_cast<std::uint32_t>(detail::get_be(in, 0, 4));
    std::vector<std::uint8_t> inflated;
    if ((cookie & ~0xf0u) == hdr_v2_compressed_cookie_base) {
        const auto len = static_cast<std::int32_t>(detail::get_be(in, 4, 4));
        if (len < 0 || static_cast<std::size_t>(len) != in.size() - 8)
            detail::bad_hdr("compressed length " + std::to_string(len) + " does not match the " +
                            std::to_string(in.size() - 8) + " bytes that follow");
        inflated = detail::inflate_stored(in.subspan(8));
        in = inflated;
        if (in.size() < 8 || (detail::get_be(in, 0, 4) & ~0xf0u) != hdr_v2_encoding_cookie_base)
            detail::bad_hdr("the compressed form does not hold a V2 encoding");
    } else if ((cookie & ~0xf0u) != hdr_v2_encoding_cookie_base) {
        char hex[11];
        std::snprintf(hex, sizeof hex, "0x%08x", cookie);
        detail::bad_hdr(std::string("cookie ") + hex +
                        " is not a V2 encoding (0x1c849303/0x1c849304 with any word-size nibble); V0/V1 are not read");
    }
    if (in.size() < 40) detail::bad_hdr("header of " + std::to_string(in.size()) + " bytes is shorter than 40");
    const auto payload_len = static_cast<std::int32_t>(detail::get_be(in, 4, 4));
    if (payload_len < 0 || static_cast<std::size_t>(payload_len) != in.size() - 40)
        detail::bad_hdr("payload length " + std::to_string(payload_len) + " does not match the " +
                        std::to_string(in.size() - 40) + " bytes that follow the header");
    const auto expect = [&](std::size_t at, int bytes, std::uint64_t want, const char* field) {
        const std::uint64_t got = detail::get_be(in, at, bytes);
        if (got != want)
            detail::bad_hdr(std::string(field) + " is " + std::to_string(got) + ", this build reads only " +
                            std::to_string(want));
    };
    expect(8, 4, 0, "normalizing index offset");
    expect(12, 4, H::significant_digits, "significant digits");
    expect(16, 8, H::lowest_discernible_us, "lowest discernible value");
    expect(24, 8, H::highest_trackable_us, "highest trackable value");
    expect(32, 8, std::bit_cast<std::uint64_t>(1.0), "integer-to-double conversion ratio (bits)");

    std::vector<std::uint64_t> counts(H::counts_len, 0);
    std::size_t index = 0, at = 40;
    std::uint64_t total = 0;
    while (at < in.size()) {
        std::uint64_t v = 0;
        int k = 0;
        for (;; ++k) {
            if (at >= in.size()) detail::bad_hdr("truncated LEB128 value at the end of the payload");
            const std::uint8_t b = in[at++];
            if (k == 8) {
                v |= std::uint64_t{b} << 56;
                break;
            }
            v |= std::uint64_t{b & 0x7fu} << (7 * k);
            if ((b & 0x80) == 0) break;
        }
        const auto value = static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
        if (value < 0) {
            const std::uint64_t zeros = static_cast<std::uint64_t>(-(value + 1)) + 1;
            if (zeros > H::counts_len - index) detail::bad_hdr("a run of zero counts goes past the last bucket");
            index += zeros;
            continue;
        }
        if (index >= H::counts_len) detail::bad_hdr("more counts than the layout's " + std::to_string(H::counts_len));
        const auto c = static_cast<std::uint64_t>(value);
        if (c > std::numeric_limits<std::uint64_t>::max() - total) detail::bad_hdr("total count overflows 64 bits");
        counts[index++] = c;
        total += c;
    }
    if (total == 0) return latency_histogram{};
    std::size_t lo = 0, hi = H::counts_len - 1;
    while (counts[lo] == 0) ++lo;
    while (counts[hi] == 0) --hi;
    std::uint64_t sum_ns = 0;
    for (std::size_t i = lo; i <= hi; ++i)
        sum_ns = detail::add_saturating(sum_ns, detail::mul_saturating(H::median_equivalent_us(i) * 1000, counts[i]));
    const std::uint64_t min_ns = H::lowest_equivalent_us(lo) * 1000;
    // HdrHistogram's counts array runs past the highest trackable value, to the end of its last
    // bucket: what lies there is folded into the top bucket and counted as saturated, exactly as
    // record() treats a value above an hour, so every count survives encode_hdr_v2.
    const std::size_t top = H::index_of_us(H::highest_trackable_us);
    std::uint64_t saturated = 0;
    for (std::size_t i = top + 1; i <= hi; ++i) {
        saturated += counts[i];  // cannot overflow: part of `total`
        counts[top] += counts[i];
        counts[i] = 0;
    }
    if (counts[top] > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        detail::bad_hdr("the counts above the highest trackable value bring the top bucket to " +
                        std::to_string(counts[top]) + ", more than the format's 2^63-1");
    const std::uint64_t max_us = H::highest_equivalent_us(hi);
    const std::uint64_t max_ns = (saturated > 0 ? max_us : std::min(max_us, H::highest_trackable_us)) * 1000;
    return detail::histogram_access::make(std::move(counts), total, saturated, sum_ns, min_ns, max_ns);
}

MCP_LOADTEST_DECL std::string to_hdr_base64(const latency_histogram& h,
                                            hdr_encoding encoding) {
    return detail::base64_encode(encode_hdr_v2(h, encoding));
}

MCP_LOADTEST_DECL latency_histogram from_hdr_base64(std::string_view text) {
    std::string why;
    auto bytes = detail::base64_decode(text, &why);
    if (!bytes) detail::bad_hdr(why);
    return decode_hdr_v2(*bytes);
}

}  // namespace mcp_loadtest
