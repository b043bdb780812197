// HdrHistogram V2 log codec: the binary encodings and their base64 log-line text.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/histogram/latency_histogram.hpp>

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

// ---------------------------------------------------------------------------------------------
// HdrHistogram V2 encoding, for HistogramLogReader, HistogramLogAnalyzer, hdr-plot and friends.
//
// Followed: HdrHistogram (Java) AbstractHistogram.encodeIntoByteBuffer / fillBufferFromCountsArray
// / encodeIntoCompressedByteBuffer, cross-checked with HdrHistogram_c src/hdr_histogram_log.c
// (hdr_encode_compressed, hdr_decode_compressed_v2) and src/hdr_encoding.c (zig_zag_encode_i64):
//
//   uncompressed, all big-endian, 40-byte header then payload:
//     int32 cookie      0x1c849313 = V2 base 0x1c849303 | 0x10 (the word-size nibble; both
//                       reference encoders write it, and decoders mask it off with & ~0xf0)
//     int32 payload length in bytes
//     int32 normalizing index offset (0)    int32 significant digits (3)
//     int64 lowest discernible value (1)    int64 highest trackable value (3600000000)
//     float64 integer-to-double conversion ratio (1.0)
//     payload: counts[0 .. index(max)] as ZigZag LEB128-64b9B (the 9th byte carries 8 bits);
//     a run of n >= 2 zero counts is written as -n (a single zero as 0, like the Java encoder;
//     HdrHistogram_c writes -1 there, and every decoder reads both).
//   compressed: int32 cookie 0x1c849314 (base 0x1c849304 | 0x10), int32 length of the zlib
//     stream, then a zlib stream (RFC 1950) of the uncompressed form. The stream here uses only
//     STORED deflate blocks (RFC 1951 3.2.4), so no zlib is needed; any inflater reads it.
// ---------------------------------------------------------------------------------------------

enum class hdr_encoding : std::uint8_t {
    uncompressed,  ///< V2 encoding (cookie 0x1c849313): what encodeIntoByteBuffer writes
    compressed,    ///< V2 compressed encoding (cookie 0x1c849314): what histogram log lines hold
};

inline constexpr std::uint32_t hdr_v2_encoding_cookie_base = 0x1c849303;
inline constexpr std::uint32_t hdr_v2_compressed_cookie_base = 0x1c849304;

namespace detail {

MCP_LOADTEST_DECL void put_be(std::vector<std::uint8_t>& out, std::uint64_t v, int bytes);

[[nodiscard]] MCP_LOADTEST_DECL std::uint64_t get_be(std::span<const std::uint8_t> in, std::size_t at, int bytes) noexcept;

[[nodiscard]] MCP_LOADTEST_DECL std::uint32_t get_le16(std::span<const std::uint8_t> in, std::size_t at) noexcept;

// zig_zag_encode_i64 of HdrHistogram_c / ZigZagEncoding.putLong of HdrHistogram Java.
MCP_LOADTEST_DECL void put_zigzag(std::vector<std::uint8_t>& out, std::int64_t signed_value);

[[nodiscard]] MCP_LOADTEST_DECL std::uint32_t adler32(std::span<const std::uint8_t> data) noexcept;

// A zlib stream of stored deflate blocks: header 0x78 0x01 (deflate, 32 KiB window, no
// dictionary, check bits making 0x7801 a multiple of 31), blocks of at most 65535 bytes, adler32.
MCP_LOADTEST_DECL void put_zlib_stored(std::vector<std::uint8_t>& out, std::span<const std::uint8_t> data);

[[noreturn]] MCP_LOADTEST_DECL void bad_hdr(const std::string& why);

// Reads a zlib stream made of stored blocks (what put_zlib_stored writes).
MCP_LOADTEST_DECL std::vector<std::uint8_t> inflate_stored(std::span<const std::uint8_t> in);

}  // namespace detail

/// The histogram in HdrHistogram's V2 binary encoding (see the format notes above). Its counts
/// are signed 64-bit: a bucket holding more than 2^63-1 (only reachable through merges or JSON,
/// never by recording) throws std::invalid_argument rather than being written wrong.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<std::uint8_t> encode_hdr_v2(const latency_histogram& h,
                                                                        hdr_encoding encoding = hdr_encoding::compressed);

/// Reads either V2 encoding (told apart by the cookie). Only this build's layout (1, 3600000000,
/// 3, offset 0, ratio 1.0) is accepted, and a compressed form only with stored deflate blocks.
/// HdrHistogram does not carry min, max, sum or saturation: they come back at bucket resolution
/// (lowest/highest equivalent value of the end buckets, sum of bucket midpoints). Counts past the
/// highest trackable value (HdrHistogram's last bucket reaches ~4295 s) are clamped as record()
/// clamps: into the top bucket, counted in saturated(), max() above an hour; so the total is exact
/// and survives encode_hdr_v2(). Throws std::invalid_argument saying what is wrong.
[[nodiscard]] MCP_LOADTEST_DECL latency_histogram decode_hdr_v2(std::span<const std::uint8_t> in);

/// Base64 of encode_hdr_v2(): with the default (compressed) encoding, the text an HdrHistogram
/// log line carries, readable by HistogramLogReader, HdrHistogram_c's hdr_log_read and plotters.
[[nodiscard]] MCP_LOADTEST_DECL std::string to_hdr_base64(const latency_histogram& h,
                                                          hdr_encoding encoding = hdr_encoding::compressed);

/// Inverse of to_hdr_base64() for either encoding; see decode_hdr_v2() for what comes back.
[[nodiscard]] MCP_LOADTEST_DECL latency_histogram from_hdr_base64(std::string_view text);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/histogram/impl/hdr_v2.ipp>
#endif
