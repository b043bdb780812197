// libFuzzer harness: HdrHistogram V2 decoding (decode_hdr_v2 and from_hdr_base64 in
// histogram.hpp). Whatever decodes must be a self-consistent histogram (its exact JSON form reads
// back), and must survive encode -> decode in both encodings with every bucket and the total
// intact; from there on the encoding is stable.
#include "fuzz_support.hpp"

#include <mcp_loadtest/histogram.hpp>

#include <stdexcept>
#include <vector>

namespace mlt = mcp_loadtest;
using H = mlt::latency_histogram;

namespace {

bool same_buckets(const H& a, const H& b) {
    for (std::size_t i = 0; i < H::counts_len; ++i)
        if (a.count_at_index(i) != b.count_at_index(i)) return false;
    return true;
}

void check_decoded(const H& h) {
    std::uint64_t total = 0;
    h.for_each_bucket([&](std::size_t, std::uint64_t c) { total += c; });
    FUZZ_CHECK(total == h.count(), "bucket counts add up to " + std::to_string(total) + ", count() is " +
                                       std::to_string(h.count()));
    try {
        FUZZ_CHECK(mlt::json(h).get<H>() == h, "the JSON form reads back differently");
    } catch (const std::invalid_argument& e) {
        fuzz::fail("the decoded histogram's JSON form is rejected", __FILE__, __LINE__, e.what());
    }
    (void)h.summary();  // walks the buckets: must not read out of range
    for (const auto encoding : {mlt::hdr_encoding::uncompressed, mlt::hdr_encoding::compressed}) {
        std::vector<std::uint8_t> bytes;
        try {
            bytes = mlt::encode_hdr_v2(h, encoding);
        } catch (const std::invalid_argument& e) {
            fuzz::fail("encode_hdr_v2 refuses what decode_hdr_v2 accepted", __FILE__, __LINE__, e.what());
        }
        H back;
        try {
            back = mlt::decode_hdr_v2(bytes);
        } catch (const std::invalid_argument& e) {
            fuzz::fail("decode_hdr_v2 rejects what encode_hdr_v2 wrote", __FILE__, __LINE__, e.what());
        }
        FUZZ_CHECK(back.count() == h.count(),
                   "count " + std::to_string(h.count()) + " became " + std::to_string(back.count()));
        FUZZ_CHECK(same_buckets(back, h), "the buckets changed in an encode -> decode round trip");
        FUZZ_CHECK(mlt::encode_hdr_v2(back, encoding) == bytes, "the encoding is not stable");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        check_decoded(mlt::decode_hdr_v2(std::span<const std::uint8_t>(data, size)));
    } catch (const std::invalid_argument&) {
    }
    // The text form, as histogram log lines carry it.
    try {
        check_decoded(mlt::from_hdr_base64(std::string_view(reinterpret_cast<const char*>(data), size)));
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
