// libFuzzer harness: the Server-Sent Events parser (detail/wire/sse.hpp), fed whole, split in two and
// byte by byte; the three transcripts (events, last event ID, retry, comments, error) must agree.
// Limit (byte 1): n > 0 sets max_event_bytes = 4n. Flags (byte 0): bit 0 then restarts the parser
// (a reconnection) and feeds the stream again: it must deliver what a fresh parser delivers.
#include "fuzz_support.hpp"

#include <mcp_loadtest/detail/wire/sse.hpp>

namespace sse = mcp_loadtest::detail::sse;

namespace {

std::string transcript(const fuzz::stream_input& in, int how) {
    sse::parser p(in.limit != 0 ? std::size_t{in.limit} * 4 : sse::parser::default_max_event_bytes);
    std::string out;
    const auto on_event = [&](const sse::event& e) {
        FUZZ_CHECK(!e.type.empty());
        FUZZ_CHECK(e.has_data || e.data.empty());
        // What the block held counts against the limit ("message" is the default, not held).
        FUZZ_CHECK(e.data.size() + (e.type == "message" ? 0 : e.type.size()) <= p.max_event_bytes());
        out += "event type=" + std::string(e.type) + " id=" + std::string(e.id) + (e.has_data ? " data=" : " no data") +
               std::string(e.data) + "\n";
    };
    bool ok = true;
    fuzz::feed_pieces(in, how, [&](std::string_view piece) {
        ok = p.feed(piece, on_event);
        return ok;
    });
    if (!ok) {
        FUZZ_CHECK(p.failed());
        FUZZ_CHECK(!p.last_error().message.empty());
        out += "error " + std::to_string(static_cast<int>(p.last_error().code)) + "\n";
        FUZZ_CHECK(!p.feed("data: x\n\n", on_event), "a failed parser accepted more bytes");
    } else {
        FUZZ_CHECK(!p.failed());
        out += std::string("end mid_event=") + (p.mid_event() ? "1" : "0") + "\n";
    }
    out += "last_event_id=" + std::string(p.last_event_id()) + " retry=" +
           (p.retry_ms() ? std::to_string(*p.retry_ms()) : "-") + " comments=" + std::to_string(p.comments()) + "\n";
    if (in.flags & 1) {
        // After a reconnection the parser must behave as a fresh one, except for the last event
        // ID and retry, which survive: feed the stream again whole.
        p.restart();
        FUZZ_CHECK(!p.failed() && !p.mid_event());
        sse::parser fresh(p.max_event_bytes());
        std::string again, fresh_events;
        bool ok_again = p.feed(in.stream, [&](const sse::event& e) {
            again += std::string(e.type) + "|" + std::string(e.data) + "|" + (e.has_data ? "d" : "-") + "\n";
        });
        bool ok_fresh = fresh.feed(in.stream, [&](const sse::event& e) {
            fresh_events += std::string(e.type) + "|" + std::string(e.data) + "|" + (e.has_data ? "d" : "-") + "\n";
        });
        FUZZ_CHECK(ok_again == ok_fresh);
        FUZZ_CHECK(again == fresh_events, "after restart():\n" + again + "\nfresh parser:\n" + fresh_events);
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 4) return 0;
    const fuzz::stream_input in = fuzz::take_stream_input(data, size);
    fuzz::check_feedings_agree(in, [&](int how) { return transcript(in, how); });
    return 0;
}
