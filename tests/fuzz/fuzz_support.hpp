// Shared by the libFuzzer harnesses: a check that aborts with a message (libFuzzer then saves the
// input as a crash), and the three ways an incremental parser is fed.
//
// Input layout of the incremental-parser harnesses (http1, sse, websocket): four parameter bytes,
// then the stream.
//   byte 0     flags, harness-specific (see each harness)
//   byte 1     limit: 0 keeps the parser's default limits, n > 0 makes them small (harness-specific
//              scale), so the size-limit paths are reachable within libFuzzer's input sizes
//   bytes 2-3  split point (little-endian), taken modulo (stream size + 1)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fuzz {

[[noreturn]] inline void fail(const char* check, const char* file, int line, const std::string& detail) {
    std::fprintf(stderr, "\n%s:%d: fuzz check failed: %s\n%s\n", file, line, check, detail.c_str());
    std::abort();
}

// FUZZ_CHECK(cond) or FUZZ_CHECK(cond, detail_string): aborts when cond is false.
#define FUZZ_CHECK(cond, ...)                                                              \
    do {                                                                                   \
        if (!(cond)) ::fuzz::fail(#cond, __FILE__, __LINE__, ::fuzz::detail_text(__VA_ARGS__)); \
    } while (0)

inline std::string detail_text() { return {}; }
inline std::string detail_text(const std::string& s) { return s; }

/// Printable form of bytes for failure messages: escapes everything outside ASCII 0x20..0x7e.
inline std::string shown(std::string_view bytes, std::size_t max = 400) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < bytes.size() && i < max; ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out += static_cast<char>(c);
        } else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    if (bytes.size() > max) out += "...(" + std::to_string(bytes.size()) + " bytes)";
    return out;
}

struct stream_input {
    std::uint8_t flags = 0;
    std::uint8_t limit = 0;
    std::size_t split = 0;
    std::string_view stream;
};

inline stream_input take_stream_input(const std::uint8_t* data, std::size_t size) {
    stream_input in;
    if (size < 4) return in;
    in.flags = data[0];
    in.limit = data[1];
    in.stream = std::string_view(reinterpret_cast<const char*>(data) + 4, size - 4);
    in.split = (std::size_t{data[2]} | (std::size_t{data[3]} << 8)) % (in.stream.size() + 1);
    return in;
}

/// One piece of a feeding, copied into a heap block of exactly its size: a parser reading past
/// the end of the piece it was given, or keeping a view into it after the call, is then caught by
/// AddressSanitizer instead of silently reading the next piece.
class piece {
public:
    explicit piece(std::string_view bytes) : size_(bytes.size()), bytes_(new char[bytes.size() ? bytes.size() : 1]) {
        if (size_) std::char_traits<char>::copy(bytes_.get(), bytes.data(), size_);
    }
    [[nodiscard]] std::string_view view() const noexcept { return {bytes_.get(), size_}; }

private:
    std::size_t size_;
    std::unique_ptr<char[]> bytes_;
};

/// Calls feed(std::string_view piece) -> bool (false: stop) for each piece of one feeding:
/// 0 = the stream whole, 1 = in two at the split point, 2 = one byte at a time.
template <class Feed>
void feed_pieces(const stream_input& in, int how, Feed&& feed) {
    const auto one = [&](std::string_view bytes) {
        const piece p(bytes);  // freed right after the call
        return feed(p.view());
    };
    switch (how) {
        case 0:
            one(in.stream);
            return;
        case 1:
            if (one(in.stream.substr(0, in.split))) one(in.stream.substr(in.split));
            return;
        default:
            for (std::size_t i = 0; i < in.stream.size(); ++i)
                if (!one(in.stream.substr(i, 1))) return;
            return;
    }
}

/// Runs `transcript_of(how)` for the three feedings and aborts if they differ.
template <class Run>
void check_feedings_agree(const stream_input& in, Run&& transcript_of) {
    const std::string whole = transcript_of(0);
    const std::string split = transcript_of(1);
    FUZZ_CHECK(split == whole, "split at " + std::to_string(in.split) + " of " + std::to_string(in.stream.size()) +
                                   " bytes\nwhole:\n" + shown(whole, 2000) + "\nsplit:\n" + shown(split, 2000) +
                                   "\nstream:\n" + shown(in.stream));
    const std::string bytes = transcript_of(2);
    FUZZ_CHECK(bytes == whole, "byte by byte\nwhole:\n" + shown(whole, 2000) + "\nbyte by byte:\n" +
                                   shown(bytes, 2000) + "\nstream:\n" + shown(in.stream));
}

}  // namespace fuzz
