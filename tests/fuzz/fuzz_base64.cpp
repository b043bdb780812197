// libFuzzer harness: base64 (detail/wire/base64.hpp), both directions. The input as text: a decode
// that succeeds re-encodes to text that decodes to the same bytes. The input as bytes: encoding
// then decoding gives them back, and the encoding is canonical (padded, 4 characters per 3 bytes).
#include "fuzz_support.hpp"

#include <mcp_loadtest/detail/wire/base64.hpp>

#include <span>

namespace d = mcp_loadtest::detail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::uint8_t> bytes(data, size);
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    std::string error;
    if (const auto decoded = d::base64_decode(text, &error)) {
        FUZZ_CHECK(error.empty());
        const std::string again = d::base64_encode(*decoded);
        const auto round = d::base64_decode(again);
        FUZZ_CHECK(round && *round == *decoded, "re-encoding " + fuzz::shown(text) + " as " + again);
        // Only the padding and the unused low bits of the last character may differ.
        std::string_view stripped = text;
        while (!stripped.empty() && stripped.back() == '=') stripped.remove_suffix(1);
        FUZZ_CHECK(again.substr(0, stripped.size() ? stripped.size() - 1 : 0) ==
                       stripped.substr(0, stripped.size() ? stripped.size() - 1 : 0),
                   fuzz::shown(text) + " re-encoded as " + again);
    } else {
        FUZZ_CHECK(!error.empty());
    }

    const std::string encoded = d::base64_encode(bytes);
    FUZZ_CHECK(encoded.size() == (size + 2) / 3 * 4);
    const auto back = d::base64_decode(encoded, &error);
    FUZZ_CHECK(back && back->size() == size && std::equal(back->begin(), back->end(), bytes.begin()),
               "round trip of " + fuzz::shown(text) + " via " + encoded + ": " + error);
    std::string appended = "prefix";
    d::base64_append(appended, bytes);
    FUZZ_CHECK(appended == "prefix" + encoded);
    return 0;
}
