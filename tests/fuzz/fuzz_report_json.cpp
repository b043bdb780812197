// libFuzzer harness: load_report's JSON decoder (from_json in load_report.hpp). Bad input may only
// throw std::invalid_argument, the documented error, with the path of the offending field; what
// decodes must be stable: decode -> encode -> decode -> encode gives the same JSON.
#include "fuzz_support.hpp"

#include <mcp_loadtest/load_report.hpp>

#include <stdexcept>

namespace mlt = mcp_loadtest;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const mlt::json j = mlt::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded()) return 0;
    mlt::load_report report;
    try {
        report = j.get<mlt::load_report>();
    } catch (const std::invalid_argument& e) {
        const std::string_view why = e.what();
        FUZZ_CHECK(why.starts_with("report") || why.starts_with("not an mcp-loadtest load report"),
                   "an error without the field's path: " + std::string(why));
        return 0;
    }
    const mlt::json encoded = report;
    mlt::load_report again;
    try {
        again = encoded.get<mlt::load_report>();
    } catch (const std::invalid_argument& e) {
        fuzz::fail("the decoder rejects what the encoder wrote", __FILE__, __LINE__,
                   std::string(e.what()) + "\n" + encoded.dump());
    }
    FUZZ_CHECK(mlt::json(again) == encoded, "decode -> encode -> decode -> encode differs");
    (void)again.summary();
    return 0;
}
