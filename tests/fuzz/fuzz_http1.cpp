// libFuzzer harness: the HTTP/1.1 response parser (detail/wire/http1.hpp), fed whole, split in two
// and byte by byte; the three transcripts (heads, body bytes, ends, errors) must agree.
// Flags (byte 0): bit 0 calls expect_no_body() before the first response (a HEAD request).
// Limit (byte 1): n > 0 sets max_header_bytes = 8n and max_body_bytes = 16n.
#include "fuzz_support.hpp"

#include <mcp_loadtest/detail/wire/http1.hpp>

namespace http1 = mcp_loadtest::detail::http1;

namespace {

std::string render_head(const http1::response_parser& p) {
    std::string out = "headers " + std::to_string(p.status()) + " 1." + std::to_string(p.head().minor_version) +
                      " reason=" + std::string(p.head().reason) + " keep_alive=" + (p.keep_alive() ? "1" : "0") +
                      " chunked=" + (p.chunked() ? "1" : "0") + " length=" +
                      (p.content_length() ? std::to_string(*p.content_length()) : "-") + " content_type=" +
                      (p.head().content_type ? "'" + std::string(*p.head().content_type) + "'" : "-") + "\n";
    FUZZ_CHECK(p.head().content_type == p.head().find("content-type"));
    for (const auto& f : p.head().fields) out += "  " + std::string(f.name) + ": " + std::string(f.value) + "\n";
    return out;
}

std::string transcript(const fuzz::stream_input& in, int how) {
    http1::limits limits;
    if (in.limit != 0) {
        limits.max_header_bytes = std::size_t{in.limit} * 8;
        limits.max_body_bytes = std::uint64_t{in.limit} * 16;
    }
    http1::response_parser p(limits);
    if (in.flags & 1) p.expect_no_body();
    std::string out, body;
    std::size_t offset = 0;  // stream bytes consumed so far
    bool stopped = false;
    const auto end_body = [&](const char* why) {
        out += std::string(why) + " after " + std::to_string(body.size()) + " body bytes: " + body + "\n";
        body.clear();
    };
    const auto handle = [&](const http1::step& s) {
        switch (s.kind) {
            case http1::event::need_more:
                break;
            case http1::event::headers:
                out += render_head(p);
                break;
            case http1::event::body:
                FUZZ_CHECK(!s.body.empty());
                FUZZ_CHECK(s.body.size() <= s.consumed);
                body += s.body;
                break;
            case http1::event::done:
                end_body("done");
                break;
            case http1::event::upgrade:
                out += render_head(p) + "upgrade at byte " + std::to_string(offset) + "\n";
                stopped = true;
                break;
            case http1::event::closed:
                out += "closed\n";
                stopped = true;
                break;
            case http1::event::error:
                FUZZ_CHECK(p.failed());
                FUZZ_CHECK(!p.last_error().message.empty());
                end_body((std::string("error ") + std::string(http1::to_string(p.last_error().code))).c_str());
                stopped = true;
                break;
        }
    };
    fuzz::feed_pieces(in, how, [&](std::string_view piece) {
        // Every step uses a byte or reports an event, and parse() is called once more per event:
        // more calls than that means the parser is going round in circles.
        const std::size_t piece_size = piece.size();
        for (std::size_t calls = 0;; ++calls) {
            FUZZ_CHECK(calls <= 2 * piece_size + 8, "parse() makes no progress");
            const http1::step s = p.parse(piece);
            FUZZ_CHECK(s.consumed <= piece.size());
            if (s.kind == http1::event::body)
                FUZZ_CHECK(s.body.data() >= piece.data() &&
                               s.body.data() + s.body.size() <= piece.data() + piece.size(),
                           "a body view outside the input");
            piece.remove_prefix(s.consumed);
            offset += s.consumed;
            if (s.kind == http1::event::need_more) {
                FUZZ_CHECK(piece.empty(), "need_more with unused bytes");
                return true;
            }
            handle(s);
            if (stopped) return false;
        }
    });
    if (!stopped) {
        const http1::step s = p.eof();
        FUZZ_CHECK(s.kind == http1::event::done || s.kind == http1::event::closed || s.kind == http1::event::error);
        handle(s);
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fuzz::stream_input in = fuzz::take_stream_input(data, size);
    if (size < 4) return 0;
    fuzz::check_feedings_agree(in, [&](int how) { return transcript(in, how); });
    return 0;
}
