// libFuzzer harness: the WebSocket frame decoder (detail/wire/websocket.hpp), fed whole, split in two
// and byte by byte; the three transcripts (messages, close, error) must agree.
// Flags (byte 0): bit 0 turns UTF-8 validation off. Limit (byte 1): n > 0 sets
// max_message_bytes = 4n.
#include "fuzz_support.hpp"

#include <mcp_loadtest/detail/wire/websocket.hpp>

namespace ws = mcp_loadtest::detail::ws;

namespace {

std::string transcript(const fuzz::stream_input& in, int how) {
    ws::decoder_limits limits;
    limits.validate_utf8 = (in.flags & 1) == 0;
    if (in.limit != 0) limits.max_message_bytes = std::uint64_t{in.limit} * 4;
    ws::frame_decoder dec(limits);
    std::string out;
    const auto on_message = [&](const ws::message& m) {
        const bool control = (static_cast<unsigned>(m.kind) & 0x8) != 0;
        FUZZ_CHECK(m.kind != ws::opcode::continuation);
        if (control)
            FUZZ_CHECK(m.payload.size() <= 125);
        else
            FUZZ_CHECK(m.payload.size() <= limits.max_message_bytes);
        if (limits.validate_utf8 && (m.kind == ws::opcode::text || m.kind == ws::opcode::close))
            FUZZ_CHECK(ws::valid_utf8(m.payload), "delivered text that is not UTF-8");
        if (m.kind == ws::opcode::close) FUZZ_CHECK(m.close_code == 1005 || ws::valid_close_code(m.close_code));
        out += std::string(ws::to_string(m.kind)) + " " + std::to_string(m.close_code) + " " +
               std::to_string(m.payload.size()) + ": " + std::string(m.payload) + "\n";
    };
    bool ok = true;
    fuzz::feed_pieces(in, how, [&](std::string_view piece) {
        ok = dec.feed(piece, on_message);
        return ok;
    });
    if (!ok) {
        FUZZ_CHECK(dec.failed());
        FUZZ_CHECK(!dec.last_error().message.empty());
        out += "error " + std::string(ws::to_string(dec.last_error().code)) + "\n";
        FUZZ_CHECK(!dec.feed("\x81\x01x", on_message), "a failed decoder accepted more bytes");
    } else {
        out += std::string("end mid_message=") + (dec.mid_message() ? "1" : "0");
    }
    out += std::string(" close_received=") + (dec.close_received() ? "1" : "0") + "\n";
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 4) return 0;
    const fuzz::stream_input in = fuzz::take_stream_input(data, size);
    fuzz::check_feedings_agree(in, [&](int how) { return transcript(in, how); });
    return 0;
}
