// Unit tests of the I/O-free wire-format codecs behind the network transports: URLs, HTTP/1.1
// requests and responses, Server-Sent Events, WebSocket handshake and frames, SHA-1 and base64,
// the tools/call request writer, and the hot path's small parts: the name comparison and the
// table of calls in flight.
// Every incremental parser is fed each message whole, one byte at a time and split at every
// position, and must produce the same transcript each time, compared against a literal.
#include <doctest/doctest.h>
#include <mcp_loadtest/detail/wire/base64.hpp>
#include <mcp_loadtest/detail/session/deadline_queue.hpp>
#include <mcp_loadtest/detail/session/id_table.hpp>
#include <mcp_loadtest/detail/wire/http1.hpp>
#include <mcp_loadtest/detail/wire/http_date.hpp>
#include <mcp_loadtest/detail/wire/json_scan.hpp>
#include <mcp_loadtest/detail/wire/jsonrpc_writer.hpp>
#include <mcp_loadtest/detail/wire/proxy.hpp>
#include <mcp_loadtest/detail/wire/same_text.hpp>
#include <mcp_loadtest/detail/wire/sha1.hpp>
#include <mcp_loadtest/detail/wire/sse.hpp>
#include <mcp_loadtest/detail/wire/url.hpp>
#include <mcp_loadtest/detail/wire/websocket.hpp>
#include <mcp_loadtest/histogram.hpp>

#include "support/allocation_counter.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mlt = mcp_loadtest;
namespace d = mcp_loadtest::detail;
namespace http1 = mcp_loadtest::detail::http1;
namespace sse = mcp_loadtest::detail::sse;
namespace ws = mcp_loadtest::detail::ws;
using namespace std::string_literals;
using namespace std::string_view_literals;

using mlt_test::allocations;
using mlt_test::counting;

namespace {

bool contains(std::string_view haystack, std::string_view needle) {
    return haystack.find(needle) != std::string_view::npos;
}

using chunks = std::vector<std::string_view>;

// The message whole, one byte at a time, and cut in two at every position.
void for_each_chunking(std::string_view msg, const std::function<void(const chunks&)>& f) {
    f(chunks{msg});
    chunks bytes;
    for (std::size_t i = 0; i < msg.size(); ++i) bytes.push_back(msg.substr(i, 1));
    f(bytes);
    for (std::size_t i = 0; i <= msg.size(); ++i) f(chunks{msg.substr(0, i), msg.substr(i)});
}

// ---------------------------------------------------------------------------------------------
// HTTP driver: runs a parser over chunks and renders what it reported as text.

struct http_run {
    std::string transcript;  // one line per response, then "error: ..." if any
    std::string leftover;    // bytes after a 101 head
    http1::errc error = http1::errc::none;
    std::string error_message;
};

std::string render_head(const http1::response_parser& p) {
    std::string out = std::to_string(p.status()) + " '" + std::string(p.head().reason) +
                      "' ka=" + (p.keep_alive() ? "1" : "0") + " [";
    for (const auto& f : p.head().fields) out += std::string(f.name) + "=" + std::string(f.value) + ";";
    return out + "]";
}

http_run run_http(http1::response_parser& p, const chunks& input, bool eof_at_end = false) {
    http_run r;
    std::string body;
    bool stop = false;
    const auto handle = [&](const http1::step& s) {
        switch (s.kind) {
            case http1::event::headers:
                r.transcript += render_head(p) + " body='";
                body.clear();
                break;
            case http1::event::body:
                body += s.body;
                break;
            case http1::event::done:
                r.transcript += body + "'\n";
                break;
            case http1::event::upgrade:
                r.transcript += "upgrade " + render_head(p) + "\n";
                stop = true;
                break;
            case http1::event::closed:
                r.transcript += "closed\n";
                break;
            case http1::event::error:
                r.error = p.last_error().code;
                r.error_message = p.last_error().message;
                r.transcript += "error: " + std::string(http1::to_string(r.error)) + "\n";
                stop = true;
                break;
            case http1::event::need_more:
                break;
        }
    };
    for (std::size_t c = 0; c < input.size() && !stop; ++c) {
        std::string_view in = input[c];
        for (;;) {
            const http1::step s = p.parse(in);
            REQUIRE(s.consumed <= in.size());
            in.remove_prefix(s.consumed);
            if (s.kind == http1::event::need_more) {
                REQUIRE(in.empty());
                break;
            }
            handle(s);
            if (stop) {
                if (s.kind == http1::event::upgrade) {
                    r.leftover = in;
                    for (std::size_t rest = c + 1; rest < input.size(); ++rest) r.leftover += input[rest];
                }
                break;
            }
        }
    }
    if (eof_at_end && !stop) handle(p.eof());
    return r;
}

http_run run_http(std::string_view whole, bool eof_at_end = false, http1::limits l = {}) {
    http1::response_parser p(l);
    return run_http(p, chunks{whole}, eof_at_end);
}

// Checks that every chunking of `msg` gives `expected`.
void check_http_every_split(std::string_view msg, const std::string& expected, bool eof_at_end = false,
                            std::string_view expected_leftover = {}) {
    for_each_chunking(msg, [&](const chunks& input) {
        http1::response_parser p;
        const http_run r = run_http(p, input, eof_at_end);
        CAPTURE(input.size());
        CAPTURE(input.front().size());
        REQUIRE(r.transcript == expected);
        REQUIRE(r.leftover == expected_leftover);
    });
}

// ---------------------------------------------------------------------------------------------
// SSE driver

std::vector<std::string> run_sse(sse::parser& p, const chunks& input, bool* ok = nullptr) {
    std::vector<std::string> events;
    bool good = true;
    for (const auto c : input) {
        good = p.feed(c, [&](const sse::event& e) {
            events.push_back(std::string(e.type) + "|" + std::string(e.data) + "|" + std::string(e.id) + "|" +
                             (e.has_data ? "data" : "no-data"));
        });
        if (!good) break;
    }
    if (ok) *ok = good;
    return events;
}

void check_sse_every_split(std::string_view stream, const std::vector<std::string>& expected) {
    for_each_chunking(stream, [&](const chunks& input) {
        sse::parser p;
        bool ok = false;
        const auto events = run_sse(p, input, &ok);
        CAPTURE(input.size());
        CAPTURE(input.front().size());
        REQUIRE(ok);
        REQUIRE(events == expected);
    });
}

// ---------------------------------------------------------------------------------------------
// WebSocket helpers

// A server frame (unmasked unless a key is given) with the shortest length encoding.
std::string server_frame(std::uint8_t first_byte, std::string_view payload, const ws::mask_key* key = nullptr) {
    std::string out;
    out += static_cast<char>(first_byte);
    const std::uint8_t mask_bit = key ? 0x80 : 0x00;
    const std::uint64_t n = payload.size();
    if (n < 126) {
        out += static_cast<char>(mask_bit | n);
    } else if (n <= 0xFFFF) {
        out += static_cast<char>(mask_bit | 126);
        out += static_cast<char>(n >> 8);
        out += static_cast<char>(n & 0xFF);
    } else {
        out += static_cast<char>(mask_bit | 127);
        for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((n >> shift) & 0xFF);
    }
    std::string body(payload);
    if (key) {
        out.append(reinterpret_cast<const char*>(key->data()), 4);
        ws::apply_mask(body.data(), body.size(), *key);
    }
    return out + body;
}

std::string render(const ws::message& m) {
    std::string out(ws::to_string(m.kind));
    if (m.kind == ws::opcode::close) out += ":" + std::to_string(m.close_code);
    return out + ":" + std::string(m.payload);
}

std::vector<std::string> run_ws(ws::frame_decoder& dec, const chunks& input, bool* ok = nullptr) {
    std::vector<std::string> out;
    bool good = true;
    for (const auto c : input) {
        good = dec.feed(c, [&](const ws::message& m) { out.push_back(render(m)); });
        if (!good) break;
    }
    if (ok) *ok = good;
    return out;
}

void check_ws_every_split(std::string_view stream, const std::vector<std::string>& expected) {
    for_each_chunking(stream, [&](const chunks& input) {
        ws::frame_decoder dec;
        bool ok = false;
        const auto messages = run_ws(dec, input, &ok);
        CAPTURE(input.size());
        CAPTURE(input.front().size());
        REQUIRE(ok);
        REQUIRE(messages == expected);
        REQUIRE_FALSE(dec.mid_message());
    });
}

// Feeds `stream` in one piece and returns the decoder's error (errc::none if it succeeded).
ws::error ws_error(std::string_view stream, ws::decoder_limits l = {}) {
    ws::frame_decoder dec(l);
    bool ok = dec.feed(stream, [](const ws::message&) {});
    if (ok) return {};
    return dec.last_error();
}

std::string hex(std::span<const std::uint8_t> bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (const auto b : bytes) (out += digits[b >> 4]) += digits[b & 15];
    return out;
}

std::string bytes_of(std::initializer_list<int> values) {
    std::string out;
    for (const int v : values) out += static_cast<char>(v);
    return out;
}

}  // namespace

// =============================================================================================
// URL

TEST_CASE("same_text: every length up to 40, equal and differing at each byte") {
    // Its tail is read in overlapping words: every length and every position of a
    // difference must still be seen. The texts sit in heap blocks of exactly their
    // size, so AddressSanitizer reports a read past either one.
    for (std::size_t n = 0; n <= 40; ++n) {
        const auto a = std::make_unique<char[]>(n + 1);
        const auto b = std::make_unique<char[]>(n);
        std::fill_n(a.get(), n + 1, 'a');
        std::fill_n(b.get(), n, 'a');
        const std::string_view x(a.get(), n), y(b.get(), n);
        CHECK(d::same_text(x, y));
        for (std::size_t i = 0; i < n; ++i) {
            b[i] = 'b';
            CHECK_FALSE(d::same_text(x, y));
            CHECK_FALSE(d::same_text(y, x));
            b[i] = 'a';
        }
        CHECK_FALSE(d::same_text(std::string_view(a.get(), n + 1), y));
        CHECK_FALSE(d::same_text(y, std::string_view(a.get(), n + 1)));
    }
    // Views into one buffer: a prefix equal to the text after it.
    const std::string_view text = "tools/calltools/call";
    CHECK(d::same_text(text.substr(0, 10), text.substr(10)));
    CHECK(d::same_text("tools/call", text.substr(10)));
    CHECK_FALSE(d::same_text("tools/cal1", text.substr(10)));
}

TEST_CASE("ascii_iequals: every length up to 40, every byte folded or differing, against a byte-wise fold") {
    // Eight bytes per step with an overlapping last step: every length and position must be
    // seen, and only 'A'..'Z' may fold (bytes 0x20 apart that are not letters differ: '@' and
    // '`', '[' and '{', 0xC1 and 0xE1). Exact-size heap blocks, as for same_text.
    const auto reference = [](std::string_view a, std::string_view b) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (d::ascii_lower(a[i]) != d::ascii_lower(b[i])) return false;
        return true;
    };
    const std::string_view pattern = "content-type: mcp-session-id/transfer-enc";
    const std::array<std::pair<char, char>, 8> pairs{{{'a', 'A'}, {'z', 'Z'}, {'m', 'M'}, {'@', '`'}, {'[', '{'},
                                                      {'\xC1', '\xE1'}, {'-', '\r'}, {'a', 'b'}}};
    for (std::size_t n = 0; n <= 40; ++n) {
        const auto a = std::make_unique<char[]>(n);
        const auto b = std::make_unique<char[]>(n);
        std::copy_n(pattern.data(), n, a.get());
        std::copy_n(pattern.data(), n, b.get());
        const std::string_view x(a.get(), n), y(b.get(), n);
        CHECK(d::ascii_iequals(x, y));
        for (std::size_t i = 0; i < n; ++i)
            for (const auto& [lower, other] : pairs) {
                a[i] = lower;
                b[i] = other;
                CHECK(d::ascii_iequals(x, y) == reference(x, y));
                CHECK(d::ascii_iequals(y, x) == reference(y, x));
                a[i] = b[i] = pattern[i];
            }
        if (n > 0) CHECK_FALSE(d::ascii_iequals(x, y.substr(1)));
    }
    CHECK(d::ascii_iequals("Content-Length", "content-length"));
    CHECK(d::ascii_iequals("MCP-SESSION-ID", "mcp-session-id"));
    CHECK_FALSE(d::ascii_iequals("Content-Length", "content-lengtH2"));
    static_assert(d::ascii_iequals("Transfer-Encoding", "transfer-encoding"));  // still constexpr
}

TEST_CASE("id_table: a call left in flight while thousands of ids go by, then random traffic against a map") {
    using table = d::id_table<std::string>;
    table t;
    // One call hangs at id 1 while 10,000 more are issued and answered, 40 in flight at a time:
    // its slot is wanted again and again, the ring must not grow to the span of ids.
    t.insert(1, t.spare()).value = "hung";
    std::uint64_t next = 2;
    std::vector<std::uint64_t> flying;
    for (int i = 0; i < 10000; ++i) {
        if (flying.size() == 40) {
            auto h = t.take(*t.find(flying.front()));
            CHECK(h->value == std::to_string(flying.front()));
            t.recycle(std::move(h));
            flying.erase(flying.begin());
        }
        t.insert(next, t.spare()).value = std::to_string(next);
        flying.push_back(next++);
    }
    REQUIRE(t.find(1) != nullptr);
    CHECK(t.find(1)->value == "hung");
    CHECK(t.size() == 41);
    std::size_t seen = 0;
    t.for_each([&](const table::entry&) { ++seen; });
    CHECK(seen == 41);
    CHECK(t.find(next) == nullptr);
    CHECK(t.find(flying.front() - 1) == nullptr);  // answered: gone
    // A reference stays valid while the table grows around it, and after take().
    std::string& kept = t.find(1)->value;
    for (std::uint64_t id = next; id < next + 1000; ++id) t.insert(id, t.spare()).value = "burst";
    CHECK(kept == "hung");
    const auto taken = t.take(*t.find(1));
    CHECK(&taken->value == &kept);
    CHECK(t.find(1) == nullptr);
    // The rest leave in id order.
    const auto all = t.take_all();
    CHECK(all.size() == 1040);
    CHECK(std::is_sorted(all.begin(), all.end(), [](auto& a, auto& b) { return a->id < b->id; }));
    CHECK(t.empty());
    CHECK(t.find(next) == nullptr);

    // A burst grows the ring; once it has drained, the ring shrinks back.
    table b;
    for (std::uint64_t id = 1; id <= 10000; ++id) b.insert(id, b.spare());
    CHECK(b.slot_count() >= 16384);
    for (std::uint64_t id = 1; id <= 9960; ++id) b.recycle(b.take(*b.find(id)));
    for (std::uint64_t id = 10001; id <= 10100; ++id) {
        b.recycle(b.take(*b.find(id - 40)));
        b.insert(id, b.spare());
    }
    CHECK(b.slot_count() <= 256);
    CHECK(b.size() == 40);
    for (std::uint64_t id = 10061; id <= 10100; ++id) CHECK(b.find(id) != nullptr);

    // Random traffic, ids mostly in order with some far behind and re-keyed ones,
    // checked against std::map after every step.
    table r;
    std::map<std::uint64_t, std::string> model;
    std::mt19937_64 rng(7);
    std::uint64_t id = 1;
    for (int step = 0; step < 20000; ++step) {
        const auto roll = rng() % 10;
        if (roll < 5 || model.empty()) {
            id += 1 + (rng() % 16 == 0 ? rng() % 5000 : 0);  // now and then a jump
            r.insert(id, r.spare()).value = std::to_string(id);
            model[id] = std::to_string(id);
        } else {
            auto it = model.begin();
            std::advance(it, static_cast<long>(rng() % model.size()));
            auto* e = r.find(it->first);
            REQUIRE(e != nullptr);
            CHECK(e->value == it->second);
            if (roll == 9) {  // re-keyed under a new id, as an input retry is
                ++id;
                r.insert(id, r.take(*e));
                model[id] = it->second;
            } else {
                r.recycle(r.take(*e));
            }
            model.erase(it);
        }
        REQUIRE(r.size() == model.size());
        CHECK(r.find(id + 1) == nullptr);
    }
    for (const auto& [key, value] : model) {
        const auto* e = r.find(key);
        REQUIRE(e != nullptr);
        CHECK(e->value == value);
    }
}

TEST_CASE("deadline_queue: deadlines in order, out of order and tied, against a multiset") {
    // Most deadlines arrive in order (the ring); some earlier than the last (the heap).
    // Whatever the mix, entries come out earliest first, each exactly once.
    using queue = d::deadline_queue<std::int64_t>;
    std::mt19937_64 rng(7);
    for (const int out_of_order_percent : {0, 5, 50, 100}) {
        queue q;
        std::multiset<std::pair<std::int64_t, std::uint64_t>> model;
        std::int64_t now = 0;
        std::uint64_t id = 0;
        for (int step = 0; step < 20000; ++step) {
            const auto dice = rng() % 100;
            if (dice < 55) {
                now += static_cast<std::int64_t>(rng() % 3);  // ties too
                const std::int64_t at = static_cast<int>(rng() % 100) < out_of_order_percent
                                            ? now - static_cast<std::int64_t>(rng() % 50)
                                            : now + 1000;
                q.push({at, ++id});
                model.insert({at, id});
            } else if (dice < 99) {
                REQUIRE(q.empty() == model.empty());
                if (model.empty()) continue;
                const auto first = *model.begin();
                const queue::entry e = q.top();
                REQUIRE(e.at == first.first);
                REQUIRE(model.count({e.at, e.id}) == 1);  // a tie may come out in either order
                model.erase(model.find({e.at, e.id}));
                q.pop();
            } else {  // compaction: the live ones, in any order
                std::vector<queue::entry> live;
                for (const auto& [at, i] : model) live.push_back({at, i});
                std::shuffle(live.begin(), live.end(), rng);
                q.assign(std::move(live));
            }
            REQUIRE(q.size() == model.size());
        }
        while (!model.empty()) {
            REQUIRE(q.top().at == model.begin()->first);
            model.erase(model.find({q.top().at, q.top().id}));
            q.pop();
        }
        CHECK(q.empty());
    }
}

TEST_CASE("url: defaults, case folding, target") {
    std::string error;
    auto u = d::parse_url("http://example.com", &error);
    REQUIRE_MESSAGE(u, error);
    CHECK(u->scheme == "http");
    CHECK(u->host == "example.com");
    CHECK(u->port == 80);
    CHECK(u->port_text == "80");
    CHECK(u->target == "/");
    CHECK_FALSE(u->secure());
    CHECK(u->host_header() == "example.com");
    CHECK(u->origin() == "http://example.com");

    u = d::parse_url("  HTTPS://Example.COM:8443/a/B?x=1&y=%20#frag \n", &error);
    REQUIRE_MESSAGE(u, error);
    CHECK(u->scheme == "https");
    CHECK(u->host == "example.com");
    CHECK(u->port == 8443);
    CHECK(u->port_text == "8443");
    CHECK(u->target == "/a/B?x=1&y=%20");
    CHECK(u->secure());
    CHECK(u->host_header() == "example.com:8443");
    CHECK(u->redacted() == "https://example.com:8443/a/B?x=1&y=%20");

    CHECK(d::parse_url("ws://h/")->port == 80);
    CHECK(d::parse_url("wss://h/")->port == 443);
    CHECK(d::parse_url("wss://h/")->secure());
    CHECK(d::parse_url("https://h:443/x")->host_header() == "h");  // default port not repeated
    CHECK(d::parse_url("http://h:443/x")->host_header() == "h:443");
    CHECK(d::parse_url("http://h?x=1")->target == "/?x=1");
    CHECK(d::parse_url("http://h#top")->target == "/");
    CHECK(d::parse_url("http://h:/p")->port == 80);  // RFC 3986 allows an empty port
    CHECK(d::parse_url("http://127.0.0.1:3000/mcp")->host == "127.0.0.1");
}

TEST_CASE("url: IPv6 literals") {
    std::string error;
    auto u = d::parse_url("http://[::1]:3000/mcp", &error);
    REQUIRE_MESSAGE(u, error);
    CHECK(u->host == "::1");  // what a resolver takes
    CHECK(u->ipv6_literal());
    CHECK(u->port == 3000);
    CHECK(u->host_header() == "[::1]:3000");
    CHECK(u->redacted() == "http://[::1]:3000/mcp");
    u = d::parse_url("https://[2001:DB8::1]", &error);
    REQUIRE_MESSAGE(u, error);
    CHECK(u->host == "2001:db8::1");
    CHECK(u->host_header() == "[2001:db8::1]");

    CHECK_FALSE(d::parse_url("http://[::1/mcp", &error));
    CHECK(contains(error, "closing ']'"));
    CHECK_FALSE(d::parse_url("http://[::1]x/mcp", &error));
    CHECK(contains(error, "[addr]:port"));
    CHECK_FALSE(d::parse_url("http://[not-v6]/", &error));
    CHECK(contains(error, "not an IPv6 address"));
    CHECK_FALSE(d::parse_url("http://::1:3000/", &error));
    CHECK(contains(error, "in brackets"));
}

TEST_CASE("url: userinfo is kept but never shown") {
    std::string error;
    auto u = d::parse_url("https://alice:s3cret@api.example.com/mcp", &error);
    REQUIRE_MESSAGE(u, error);
    CHECK(u->userinfo == "alice:s3cret");
    CHECK(u->host == "api.example.com");
    CHECK(u->redacted() == "https://api.example.com/mcp");
    CHECK(u->host_header() == "api.example.com");

    // Errors quote the URL, without the userinfo.
    CHECK_FALSE(d::parse_url("https://alice:s3cret@api.example.com:99999/mcp", &error));
    CHECK(contains(error, "65535"));
    CHECK(contains(error, "api.example.com"));
    CHECK_FALSE(contains(error, "s3cret"));
    CHECK_FALSE(contains(error, "alice"));
    CHECK_FALSE(d::parse_url("ftp://bob:hunter2@h/", &error));
    CHECK(contains(error, "ftp"));
    CHECK_FALSE(contains(error, "hunter2"));
    CHECK_FALSE(d::parse_url("http://bob:hunter2@h/a b", &error));
    CHECK_FALSE(contains(error, "hunter2"));
}

TEST_CASE("url: actionable errors") {
    std::string error;
    const auto fails_with = [&](std::string_view text, std::string_view needle) {
        error.clear();
        const bool parsed = d::parse_url(text, &error).has_value();
        CAPTURE(text);
        CAPTURE(error);
        CHECK_FALSE(parsed);
        CHECK(contains(error, needle));
    };
    fails_with("localhost:3000/mcp", "does not start with http://");
    fails_with("ftp://h/", "unsupported scheme 'ftp'");
    fails_with("http:///path", "no host");
    fails_with("http://:80/", "no host");
    fails_with("http://h:0/", "1 to 65535");
    fails_with("http://h:65536/", "1 to 65535");
    fails_with("http://h:12ab/", "1 to 65535");
    fails_with("http://h:123456/", "1 to 65535");
    fails_with("http://h/a b", "percent-encode");
    fails_with(
        "http://h/a\x01"
        "b",
        "percent-encode");
    CHECK(d::parse_url("http://h/a\x01")->target == "/a");  // surrounding controls are trimmed, like spaces
    fails_with("http://h/caf\xC3\xA9", "percent-encode");
    fails_with("http://ho st/", "host holds the character");
    CHECK(d::parse_url("http://h/x").has_value());  // and the same with no error pointer:
    CHECK_FALSE(d::parse_url("nope").has_value());
}

TEST_CASE("url: resolving the legacy SSE endpoint") {
    std::string error;
    const auto base = *d::parse_url("http://user:pw@localhost:8080/mcp/sse?token=1#x");
    const auto resolve = [&](std::string_view ref) -> std::string {
        error.clear();
        auto r = d::resolve_relative(base, ref, &error);
        return r ? r->redacted() : "error: " + error;
    };
    CHECK(resolve("/message?sessionId=abc") == "http://localhost:8080/message?sessionId=abc");
    CHECK(resolve("message?sessionId=abc") == "http://localhost:8080/mcp/message?sessionId=abc");
    CHECK(resolve("./message") == "http://localhost:8080/mcp/message");
    CHECK(resolve("../up/x") == "http://localhost:8080/up/x");
    CHECK(resolve("../../../../x") == "http://localhost:8080/x");
    CHECK(resolve("/a/./b/../c?q") == "http://localhost:8080/a/c?q");
    CHECK(resolve("?sessionId=2") == "http://localhost:8080/mcp/sse?sessionId=2");
    CHECK(resolve("#frag") == "http://localhost:8080/mcp/sse?token=1");
    CHECK(resolve("/message#frag") == "http://localhost:8080/message");
    CHECK(resolve("https://other.example:9443/m?s=1") == "https://other.example:9443/m?s=1");
    CHECK(resolve("//other.example/m") == "http://other.example/m");
    CHECK(resolve("  /padded \r\n") == "http://localhost:8080/padded");
    CHECK(d::resolve_relative(base, "/message")->userinfo == "user:pw");  // same authority, same credentials
    CHECK(d::resolve_relative(base, "/message")->port == 8080);
    CHECK(contains(resolve(""), "empty"));
    CHECK(contains(resolve("/a b"), "percent-encode"));
    CHECK(contains(resolve("gopher://h/"), "unsupported scheme"));
    CHECK_FALSE(contains(resolve("/a b"), "pw"));
}

// =============================================================================================
// HTTP/1.1 request writer

TEST_CASE("http1: request writer") {
    const auto u = *d::parse_url("http://example.com:8080/mcp?x=1");
    std::string out = "previous|";
    const std::array<http1::field, 2> headers{
        {{"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}}};
    http1::write_request(out, "POST", u, headers, R"({"a":1})");
    CHECK(out ==
          "previous|POST /mcp?x=1 HTTP/1.1\r\nHost: example.com:8080\r\nContent-Type: application/json\r\n"
          "Accept: application/json, text/event-stream\r\nContent-Length: 7\r\n\r\n{\"a\":1}");

    out.clear();
    http1::write_request(out, "GET", "h", "/sse", {{"Accept", "text/event-stream"}, {"Last-Event-ID", "42"}});
    CHECK(out == "GET /sse HTTP/1.1\r\nHost: h\r\nAccept: text/event-stream\r\nLast-Event-ID: 42\r\n\r\n");

    out.clear();
    http1::write_request(out, "POST", "h", "/", {});  // an empty POST still says its length
    CHECK(out == "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");

    out.clear();
    http1::write_request(out, "DELETE", *d::parse_url("http://[::1]:3000/mcp"), {{"Mcp-Session-Id", "s1"}});
    CHECK(out == "DELETE /mcp HTTP/1.1\r\nHost: [::1]:3000\r\nMcp-Session-Id: s1\r\n\r\n");

    // Requests append: two in a row are pipelined bytes.
    out.clear();
    http1::write_request(out, "GET", "h", "/a", {});
    http1::write_request(out, "GET", "h", "/b", {});
    CHECK(out == "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n");
}

TEST_CASE("http1: caller headers are checked up front") {
    std::string error;
    CHECK(http1::valid_field("Mcp-Session-Id", "abc-123", &error));
    CHECK_FALSE(http1::valid_field("Bad Name", "v", &error));
    CHECK(contains(error, "Bad Name"));
    CHECK_FALSE(http1::valid_field("", "v", &error));
    CHECK_FALSE(http1::valid_field("X-Inject", "a\r\nEvil: 1", &error));
    CHECK(contains(error, "X-Inject"));
    CHECK_FALSE(http1::valid_field("X-Nul", "a\0b"sv, &error));
}

// =============================================================================================
// HTTP/1.1 response parser

TEST_CASE("http1: a Content-Length response at every split point") {
    const std::string msg =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\nX-Empty:\r\n"
        "X-Spaces: \t padded value \t\r\n\r\n{\"result\":42}";
    check_http_every_split(
        msg,
        "200 'OK' ka=1 [Content-Type=application/json;Content-Length=13;X-Empty=;X-Spaces=padded value;] "
        "body='{\"result\":42}'\n");
}

TEST_CASE("http1: header lookup is case-insensitive and keeps duplicates") {
    http1::response_parser p;
    const std::string msg =
        "HTTP/1.1 404 Not Found Here\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nConnection: keep-alive, Upgrade\r\n"
        "X-Folded: first\r\n  second\r\n\tthird\r\nContent-Length: 0\r\n\r\n";
    const auto s = p.parse(msg);
    REQUIRE(s.kind == http1::event::headers);
    CHECK(s.consumed == msg.size());
    const auto& h = p.head();
    CHECK(h.status == 404);
    CHECK(h.reason == "Not Found Here");
    CHECK(h.minor_version == 1);
    CHECK(h.find("SET-COOKIE") == "a=1");
    CHECK(h.count("Set-Cookie") == 2);
    CHECK(h.fields[1].value == "b=2");
    CHECK(h.has_token("connection", "UPGRADE"));
    CHECK(h.has_token("Connection", "keep-alive"));
    CHECK_FALSE(h.has_token("Connection", "close"));
    CHECK_FALSE(h.find("X-Missing").has_value());
    CHECK(h.find("x-folded") == "first    second   third");  // obs-fold: line breaks become spaces
    CHECK(p.content_length() == 0u);
    CHECK(p.parse("").kind == http1::event::done);
}

TEST_CASE("http1: the Content-Type is noted with the head, whole or split") {
    // The transports read it from head().content_type on every response: the first
    // Content-Type, its name in any case, its value folded and trimmed like every field's.
    std::string many_fields = "HTTP/1.1 200 OK\r\n";
    for (int i = 0; i < 40; ++i) many_fields += "X-Field-" + std::to_string(i) + ": " + std::to_string(i) + "\r\n";
    many_fields += "content-TYPE: text/event-stream\r\nContent-Length: 0\r\n\r\n";
    const std::pair<std::string, std::optional<std::string>> cases[] = {
        {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nCONTENT-TYPE: application/json\r\n"
         "Content-Type: text/plain\r\n\r\n{}",
         "application/json"},
        {"HTTP/1.1 100 Continue\r\nContent-Type: text/plain\r\n\r\n"
         "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
         std::nullopt},
        {"HTTP/1.1 200 OK\r\nContent-Type: \t application/json;\r\n charset=utf-8 \r\nContent-Length: 0\r\n\r\n",
         "application/json;   charset=utf-8"},
        {"\r\nHTTP/1.0 201 Created\ncontent-type:application/json\n\nrest", "application/json"},
        {many_fields, "text/event-stream"},
    };
    for (const auto& [msg, expected] : cases) {
        CAPTURE(msg);
        for_each_chunking(msg, [&](const chunks& input) {
            http1::response_parser p;
            bool seen = false;
            for (std::string_view piece : input) {
                while (!seen) {
                    const http1::step s = p.parse(piece);
                    REQUIRE(s.kind != http1::event::error);
                    piece.remove_prefix(s.consumed);
                    if (s.kind == http1::event::headers) seen = true;
                    if (s.kind == http1::event::need_more) break;
                }
            }
            REQUIRE(seen);
            CAPTURE(input.size());
            const auto& ct = p.head().content_type;
            CHECK(ct.has_value() == expected.has_value());
            if (ct && expected) CHECK(*ct == *expected);
            CHECK(ct == p.head().find("content-type"));
        });
    }
}

TEST_CASE("http1: back-to-back responses on a keep-alive connection") {
    const std::string msg =
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst"
        "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n"
        "7\r\ndata: 1\r\n2\r\n\n\n\r\n0\r\n\r\n"
        "HTTP/1.1 204 No Content\r\n\r\n"
        "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nlast";
    check_http_every_split(
        msg,
        "200 'OK' ka=1 [Content-Length=5;] body='first'\n"
        "202 'Accepted' ka=1 [Content-Length=0;] body=''\n"
        "200 'OK' ka=1 [Transfer-Encoding=chunked;Content-Type=text/event-stream;] body='data: 1\n\n'\n"
        "204 'No Content' ka=1 [] body=''\n"
        "200 'OK' ka=0 [Content-Length=4;Connection=close;] body='last'\n");
}

TEST_CASE("http1: chunked bodies with extensions and trailers") {
    const std::string msg =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
        "5;name=value;quoted=\"a;b c\"\r\nhello\r\n"
        "6 ; spaced\r\n world\r\n"
        "00A\r\n0123456789\r\n"
        "0;last=1\r\nX-Trailer: yes\r\nX-Checksum: 123\r\n\r\n"
        "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext";
    check_http_every_split(msg,
                           "200 'OK' ka=1 [Transfer-Encoding=gzip, chunked;] body='hello world0123456789'\n"
                           "200 'OK' ka=1 [Content-Length=4;] body='next'\n");
    // Chunk lines ending in a bare LF are accepted too.
    check_http_every_split("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n",
                           "200 'OK' ka=1 [Transfer-Encoding=chunked;] body='abc'\n");
    // Upper-case hex, and the body is delivered as pieces, never whole.
    http1::response_parser p;
    const std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFF\r\n";
    REQUIRE(p.parse(head).kind == http1::event::headers);
    CHECK(p.chunked());
    const std::string part(100, 'x');
    auto s = p.parse(std::string_view(head).substr(head.size() - 4));
    CHECK(s.kind == http1::event::need_more);  // the size line was consumed
    s = p.parse(part);
    CHECK(s.kind == http1::event::body);
    CHECK(s.body.size() == 100);
    CHECK(s.body.data() == part.data());  // a view into the caller's buffer, not a copy
    CHECK(p.body_bytes() == 100);
}

TEST_CASE("http1: bodies delimited by the connection closing") {
    const std::string msg = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: a\n\ndata: b\n\n";
    check_http_every_split(msg, "200 'OK' ka=0 [Content-Type=text/event-stream;] body='data: a\n\ndata: b\n\n'\n",
                           true);
    // Without the close, the response is not complete.
    CHECK(run_http(msg).transcript == "200 'OK' ka=0 [Content-Type=text/event-stream;] body='");
    // HTTP/1.0 without a length, an empty body.
    check_http_every_split("HTTP/1.0 200 OK\r\n\r\n", "200 'OK' ka=0 [] body=''\n", true);
    // Transfer-Encoding without chunked last: the close delimits the body (RFC 9112 §6.3).
    check_http_every_split("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nraw",
                           "200 'OK' ka=0 [Transfer-Encoding=chunked, gzip;] body='raw'\n", true);
    // Bytes after the stream ended are an error, not a new response.
    http1::response_parser p;
    (void)run_http(p, chunks{"HTTP/1.1 200 OK\r\n\r\nx"}, true);
    CHECK(p.parse("more").kind == http1::event::error);
    CHECK(p.last_error().code == http1::errc::closed);
}

TEST_CASE("http1: connection closing early") {
    const auto eof_error = [](std::string_view msg) {
        http1::response_parser p;
        const http_run r = run_http(p, chunks{msg}, true);
        CAPTURE(r.transcript);
        CHECK(r.error == http1::errc::unexpected_eof);
        return r.error_message;
    };
    CHECK(contains(eof_error("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"), "after 3 of the 10 body bytes"));
    CHECK(contains(eof_error("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"), "after 0 of the 10"));
    CHECK(contains(eof_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"), "chunked body"));
    CHECK(contains(eof_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nTrailer: 1\r\n"),
                   "chunked body"));
    CHECK(contains(eof_error("HTTP/1.1 200 OK\r\nContent-"), "inside a response head"));
    // Between responses, a close is clean.
    CHECK(run_http("", true).transcript == "closed\n");
    CHECK(run_http("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", true).transcript ==
          "200 'OK' ka=1 [Content-Length=1;] body='x'\nclosed\n");
    CHECK(run_http("\r\n", true).transcript == "closed\n");
}

TEST_CASE("http1: interim responses are skipped, 101 stops the parser") {
    check_http_every_split(
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </style.css>\r\n\r\n"
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        "200 'OK' ka=1 [Content-Length=2;] body='ok'\n");
    const std::string frame = "\x81\x02hi";
    check_http_every_split(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n" + frame,
        "upgrade 101 'Switching Protocols' ka=1 [Upgrade=websocket;Connection=Upgrade;]\n", false, frame);
}

TEST_CASE("http1: a 2xx answer to CONNECT opens the tunnel at every split point, a refusal is a response") {
    const std::string hello = "\x16\x03\x01";  // what the tunnel carries next (a TLS ClientHello)
    const std::string established = "HTTP/1.1 200 Connection established\r\nProxy-Agent: test\r\n\r\n";
    for_each_chunking(established + hello, [&](const chunks& input) {
        http1::response_parser p;
        p.expect_tunnel();
        const http_run r = run_http(p, input);
        REQUIRE(r.transcript == "upgrade 200 'Connection established' ka=0 [Proxy-Agent=test;]\n");
        REQUIRE(r.leftover == hello);
    });
    const std::string refused =
        "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\nContent-Length: 4\r\n\r\nno\r\n";
    for_each_chunking(refused, [&](const chunks& input) {
        http1::response_parser p;
        p.expect_tunnel();
        const http_run r = run_http(p, input);
        REQUIRE(r.transcript ==
                "407 'Proxy Authentication Required' ka=1 [Proxy-Authenticate=Basic;Content-Length=4;] body='no\r\n'\n");
    });
    // Without expect_tunnel() the same 200 is an ordinary response (its body runs to the close).
    CHECK(run_http(established + hello, true).transcript ==
          "200 'Connection established' ka=0 [Proxy-Agent=test;] body='" + hello + "'\n");
    std::string connect;
    http1::write_connect(connect, "[::1]:8443", "Basic dTpw");
    CHECK(connect == "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\nProxy-Authorization: Basic dTpw\r\n\r\n");
}

TEST_CASE("http1: a redirected request gets the new target and Host, and loses the headers named") {
    std::string req = "POST /old HTTP/1.1\r\nHost: a.test\r\nAccept: */*\r\nAuthorization: Bearer t\r\n"
                      "X-Api-Key: k\r\nproxy-authorization: Basic x\r\nContent-Length: 2\r\n\r\n{}";
    const std::vector<std::string_view> keep_credentials{"proxy-authorization"};
    std::string same = req;
    REQUIRE(http1::retarget_request(same, "/mcp", "a.test", keep_credentials, {}));
    CHECK(same == "POST /mcp HTTP/1.1\r\nHost: a.test\r\nAccept: */*\r\nAuthorization: Bearer t\r\n"
                  "X-Api-Key: k\r\nContent-Length: 2\r\n\r\n{}");
    const std::vector<std::string_view> no_credentials{"Proxy-Authorization", "authorization", "x-api-key"};
    REQUIRE(http1::retarget_request(req, "http://b.test:8080/mcp", "b.test:8080", no_credentials,
                                    "Proxy-Authorization: Basic y\r\n"));
    CHECK(req == "POST http://b.test:8080/mcp HTTP/1.1\r\nHost: b.test:8080\r\nProxy-Authorization: Basic y\r\n"
                 "Accept: */*\r\nContent-Length: 2\r\n\r\n{}");
    std::string get = "GET /sse HTTP/1.1\r\nHost: a.test\r\nAccept: text/event-stream\r\n\r\n";
    REQUIRE(http1::retarget_request(get, "/events", "a.test", keep_credentials, {}));
    CHECK(get == "GET /events HTTP/1.1\r\nHost: a.test\r\nAccept: text/event-stream\r\n\r\n");
    std::string not_ours = "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n";
    CHECK_FALSE(http1::retarget_request(not_ours, "/x", "a.test", keep_credentials, {}));
    CHECK(not_ours == "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n");
}

TEST_CASE("proxy: NO_PROXY entries match names, subdomains, addresses, CIDR ranges and ports like curl") {
    const auto at = [](std::string_view u) { return *d::parse_url(u); };
    CHECK(d::no_proxy_matches("*", at("http://anything.example/")));
    CHECK(d::no_proxy_matches("example.com", at("http://example.com/")));
    CHECK(d::no_proxy_matches("example.com", at("https://api.example.com/mcp")));
    CHECK(d::no_proxy_matches(".example.com", at("https://example.com/")));
    CHECK(d::no_proxy_matches("EXAMPLE.com.", at("https://api.example.com/")));
    CHECK_FALSE(d::no_proxy_matches("example.com", at("http://notexample.com/")));
    CHECK_FALSE(d::no_proxy_matches("api.example.com", at("http://example.com/")));
    CHECK(d::no_proxy_matches("a.test, b.test", at("http://b.test/")));
    CHECK(d::no_proxy_matches("a.test b.test", at("http://b.test/")));
    CHECK(d::no_proxy_matches("b.test:8080", at("http://b.test:8080/")));
    CHECK_FALSE(d::no_proxy_matches("b.test:8080", at("http://b.test:9090/")));
    CHECK(d::no_proxy_matches("10.1.2.3", at("http://10.1.2.3:3000/")));
    CHECK_FALSE(d::no_proxy_matches("10.1.2.3", at("http://10.1.2.4/")));
    CHECK(d::no_proxy_matches("10.0.0.0/8", at("http://10.200.3.4/")));
    CHECK_FALSE(d::no_proxy_matches("10.0.0.0/8", at("http://11.0.0.1/")));
    CHECK(d::no_proxy_matches("192.168.0.0/16", at("http://192.168.44.1/")));
    CHECK(d::no_proxy_matches("::1", at("http://[::1]:3000/")));
    CHECK(d::no_proxy_matches("[::1]:3000", at("http://[::1]:3000/")));
    CHECK_FALSE(d::no_proxy_matches("[::1]:3000", at("http://[::1]:3001/")));
    CHECK(d::no_proxy_matches("fd00::/8", at("http://[fd12:3456::1]/")));
    CHECK_FALSE(d::no_proxy_matches("fd00::/8", at("http://[fe80::1]/")));
    CHECK_FALSE(d::no_proxy_matches("", at("http://a.test/")));
    CHECK_FALSE(d::no_proxy_matches(",, ,", at("http://a.test/")));
    CHECK(d::is_loopback_host("localhost"));
    CHECK(d::is_loopback_host("mcp.localhost"));
    CHECK(d::is_loopback_host("127.0.0.1"));
    CHECK(d::is_loopback_host("127.8.9.10"));
    CHECK(d::is_loopback_host("::1"));
    CHECK(d::is_loopback_host("0:0:0:0:0:0:0:1"));
    CHECK_FALSE(d::is_loopback_host("128.0.0.1"));
    CHECK_FALSE(d::is_loopback_host("localhost.example"));
    CHECK_FALSE(d::is_loopback_host("::2"));
}

TEST_CASE("proxy: the explicit option overrides the environment, which skips loopback and NO_PROXY hosts") {
    const auto at = [](std::string_view u) { return *d::parse_url(u); };
    d::proxy_environment env;
    env.http_proxy = "proxy.corp:3128";
    env.http_name = "http_proxy";
    env.https_proxy = "http://alice:p%40ss@secure.corp:8080";
    env.https_name = "HTTPS_PROXY";
    env.no_proxy = "internal.corp";
    const mlt::proxy_options from_env;
    auto c = d::choose_proxy(at("http://mcp.example/mcp"), from_env, env);
    REQUIRE(c.proxy);
    CHECK(c.proxy->host == "proxy.corp");
    CHECK(c.proxy->port == 3128);
    CHECK_FALSE(c.tunnel_for(at("http://mcp.example/mcp")));
    CHECK(c.describe() == "the proxy http://proxy.corp:3128 (http_proxy)");
    c = d::choose_proxy(at("wss://mcp.example/ws"), from_env, env);
    REQUIRE(c.proxy);
    CHECK(c.proxy->host == "secure.corp");
    CHECK(c.tunnel_for(at("wss://mcp.example/ws")));
    CHECK(c.tunnel_for(at("ws://mcp.example/ws")));
    CHECK(d::proxy_authorization(*c.proxy) == "Basic " + d::base64_encode(std::span<const std::uint8_t>(
                                                             reinterpret_cast<const std::uint8_t*>("alice:p@ss"), 10)));
    CHECK_FALSE(contains(c.describe(), "alice"));
    CHECK_FALSE(d::choose_proxy(at("http://api.internal.corp/"), from_env, env).proxy);
    CHECK_FALSE(d::choose_proxy(at("http://127.0.0.1:3000/mcp"), from_env, env).proxy);
    CHECK_FALSE(d::choose_proxy(at("http://localhost:3000/mcp"), from_env, env).proxy);
    mlt::proxy_options direct;
    direct.from_environment = false;
    CHECK_FALSE(d::choose_proxy(at("http://mcp.example/mcp"), direct, env).proxy);
    mlt::proxy_options explicit_proxy;
    explicit_proxy.url = "http://127.0.0.1:9";
    explicit_proxy.no_proxy = "skip.example";
    c = d::choose_proxy(at("http://127.0.0.1:3000/mcp"), explicit_proxy, env);  // loopback too
    REQUIRE(c.proxy);
    CHECK(c.source == "proxy.url");
    CHECK(d::choose_proxy(at("http://internal.corp/"), explicit_proxy, env).proxy);  // the env's NO_PROXY is not used
    CHECK_FALSE(d::choose_proxy(at("http://skip.example/"), explicit_proxy, env).proxy);
    env.https_proxy.clear();
    env.all_proxy = "http://all.corp:1080";
    env.all_name = "ALL_PROXY";
    c = d::choose_proxy(at("https://mcp.example/"), from_env, env);
    REQUIRE(c.proxy);
    CHECK(c.source == "ALL_PROXY");
    env.all_proxy = "socks5://all.corp:1080";
    c = d::choose_proxy(at("https://mcp.example/"), from_env, env);
    CHECK_FALSE(c.proxy);
    CHECK(contains(c.error, "only http:// proxies are supported"));
    CHECK(contains(c.error, "ALL_PROXY"));
    CHECK(d::proxy_authorization(at("http://proxy.corp:1/")).empty());
}

TEST_CASE("http1: responses without a body") {
    // 204 and 304 have no body whatever their headers say.
    check_http_every_split(
        "HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz",
        "304 'Not Modified' ka=1 [Content-Length=100;] body=''\n204 'No Content' ka=1 [] body=''\n"
        "200 'OK' ka=1 [Content-Length=1;] body='z'\n");
    // The answer to HEAD announces a length it does not send.
    http1::response_parser p;
    p.expect_no_body();
    const http_run r = run_http(p, chunks{"HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\nHTTP/1.1 200 OK\r\n"
                                          "Content-Length: 2\r\n\r\nhi"});
    CHECK(r.transcript ==
          "200 'OK' ka=1 [Content-Length=1234;] body=''\n200 'OK' ka=1 [Content-Length=2;] body='hi'\n");
    // Blank lines before a status line are ignored.
    check_http_every_split("\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
                           "200 'OK' ka=1 [Content-Length=0;] body=''\n");
}

TEST_CASE("http1: keep-alive semantics") {
    const auto ka = [](std::string_view head) {
        http1::response_parser p;
        REQUIRE(p.parse(head).kind == http1::event::headers);
        return p.keep_alive();
    };
    CHECK(ka("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
    CHECK_FALSE(ka("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"));
    CHECK_FALSE(ka("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nconnection: Keep-Alive, CLOSE\r\n\r\n"));
    CHECK_FALSE(ka("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"));
    CHECK(ka("HTTP/1.0 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n"));
    CHECK_FALSE(ka("HTTP/1.1 200 OK\r\n\r\n"));  // delimited by the close
    CHECK(ka("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"));
}

TEST_CASE("http1: limits fail fast, with what and how big") {
    SUBCASE("a head that never ends") {
        http1::limits l;
        l.max_header_bytes = 100;
        http1::response_parser p(l);
        std::string head = "HTTP/1.1 200 OK\r\n";
        CHECK(p.parse(head).kind == http1::event::need_more);
        const std::string filler = "X-Filler: " + std::string(90, 'a') + "\r\n";
        const auto s = p.parse(filler);  // no blank line yet: still over the limit
        CHECK(s.kind == http1::event::error);
        CHECK(p.last_error().code == http1::errc::header_too_large);
        CHECK(contains(p.last_error().message, "100 bytes"));
        CHECK(contains(p.last_error().message, "max_header_bytes"));
        CHECK(contains(p.last_error().message, "HTTP/1.1 200 OK"));
    }
    SUBCASE("a head exactly at the limit is accepted") {
        const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
        http1::limits l;
        l.max_header_bytes = head.size();
        CHECK(run_http(head, false, l).transcript == "200 'OK' ka=1 [Content-Length=0;] body=''\n");
        l.max_header_bytes = head.size() - 1;
        CHECK(run_http(head, false, l).error == http1::errc::header_too_large);
    }
    SUBCASE("Content-Length: 1000000000 fails before any body byte") {
        http1::response_parser p;
        const auto s = p.parse("HTTP/1.1 200 OK\r\nContent-Length: 1000000000\r\n\r\n");
        REQUIRE(s.kind == http1::event::headers);
        CHECK(p.content_length() == 1000000000u);
        CHECK(p.parse("").kind == http1::event::error);
        CHECK(p.last_error().code == http1::errc::body_too_large);
        CHECK(contains(p.last_error().message, "1000000000 bytes (Content-Length)"));
        CHECK(contains(p.last_error().message, "67108864"));
        CHECK(p.status() == 200);  // the head is still there for the report
        // A caller expecting a large body can raise the limit for this response only.
        http1::response_parser q;
        REQUIRE(q.parse("HTTP/1.1 200 OK\r\nContent-Length: 1000000000\r\n\r\n").kind == http1::event::headers);
        q.set_body_limit(2'000'000'000);
        CHECK(q.parse("").kind == http1::event::need_more);
        CHECK(q.parse("abc").kind == http1::event::body);
    }
    SUBCASE("a chunk of 3B9ACA00 bytes fails on its size line") {
        http1::response_parser p;
        REQUIRE(p.parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n").kind == http1::event::headers);
        const auto s = p.parse("3B9ACA00");  // not even the CRLF yet
        CHECK(s.kind == http1::event::error);
        CHECK(p.last_error().code == http1::errc::body_too_large);
        CHECK(contains(p.last_error().message, "1000000000"));
        CHECK(contains(p.last_error().message, "max_body_bytes"));
    }
    SUBCASE("chunks add up") {
        http1::limits l;
        l.max_body_bytes = 10;
        http_run r = run_http(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\nghijkl\r\n0\r\n\r\n", false, l);
        CHECK(r.error == http1::errc::body_too_large);
        CHECK(contains(r.error_message, "12 bytes"));
        r = run_http("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n4\r\nghij\r\n0\r\n\r\n",
                     false, l);
        CHECK(r.transcript == "200 'OK' ka=1 [Transfer-Encoding=chunked;] body='abcdefghij'\n");
    }
    SUBCASE("a close-delimited body") {
        http1::limits l;
        l.max_body_bytes = 10;
        http1::response_parser p(l);
        CHECK(run_http(p, chunks{"HTTP/1.1 200 OK\r\n\r\n", "0123456789"}).error == http1::errc::none);
        CHECK(p.parse("x").kind == http1::event::error);
        CHECK(p.last_error().code == http1::errc::body_too_large);
        CHECK(contains(p.last_error().message, "connection closing"));
    }
    SUBCASE("the limit applies per response") {
        http1::limits l;
        l.max_body_bytes = 4;
        const http_run r =
            run_http("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabcdHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nefgh",
                     false, l);
        CHECK(r.transcript ==
              "200 'OK' ka=1 [Content-Length=4;] body='abcd'\n200 'OK' ka=1 [Content-Length=4;] body='efgh'\n");
    }
}

TEST_CASE("http1: malformed responses") {
    const auto error_of = [](std::string_view msg, http1::errc expected) {
        const http_run r = run_http(msg);
        CAPTURE(msg);
        CAPTURE(r.transcript);
        CHECK(r.error == expected);
        return r.error_message;
    };
    CHECK(contains(error_of("HTTP/1.1 2x0 OK\r\n\r\n", http1::errc::bad_status_line), "'HTTP/1.1 2x0 OK'"));
    CHECK(contains(error_of("HTTP/1.1 200OK\r\n\r\n", http1::errc::bad_status_line), "bad status line"));
    CHECK(contains(error_of("HTTP/1.1\r\n\r\n", http1::errc::bad_status_line), "bad status line"));
    CHECK(contains(error_of("HTTP/2 200\r\n\r\n", http1::errc::bad_status_line), "only HTTP/1.x"));
    CHECK(contains(error_of("\x15\x03\x03\x00\x02\x02\x46", http1::errc::bad_status_line), "https://"));
    // A peer that does not speak HTTP fails on its first bytes, not after 64 KiB.
    CHECK(contains(error_of("SSH-2.0-OpenSSH_9.2", http1::errc::bad_status_line), "'SSH-2.0-OpenSSH_9.2'"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\nNoColonHere\r\n\r\n", http1::errc::bad_header), "'NoColonHere'"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\n", http1::errc::bad_header),
                   "before the colon"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\n folded-first: x\r\n\r\n", http1::errc::bad_header), "whitespace"));
    CHECK(contains(
        error_of("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", http1::errc::bad_content_length),
        "5 and 6"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\nContent-Length: 5, 7\r\n\r\n", http1::errc::bad_content_length),
                   "5 and 7"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", http1::errc::bad_content_length), "'-1'"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n", http1::errc::bad_content_length),
                   "12abc"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n", http1::errc::bad_content_length), "invalid"));
    CHECK(contains(
        error_of("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n", http1::errc::bad_content_length),
        "out of range"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
                            http1::errc::bad_transfer_encoding),
                   "both"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", http1::errc::bad_chunk),
                   "'zz\\r\\n'"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5x\r\n", http1::errc::bad_chunk),
                   "'x"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n",
                            http1::errc::bad_chunk),
                   "longer than its size"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\rX", http1::errc::bad_chunk),
                   "CR without LF"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n00000000000000000001\r\n",
                            http1::errc::bad_chunk),
                   "16 hex digits"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + std::string(5000, 'e') + "\r\n",
                            http1::errc::bad_chunk),
                   "extensions longer"));

    // Offending bytes are quoted truncated and escaped.
    const std::string msg =
        error_of("HTTP/1.1 200 OK\r\n" + std::string(500, 'x') + "\r\n\r\n", http1::errc::bad_header);
    CHECK(msg.size() < 150);
    CHECK(contains(msg, "more bytes"));
    CHECK(contains(error_of("HTTP/1.1 200 OK\r\nBad\x01\xff\r\n\r\n", http1::errc::bad_header), "\\x01\\xff"));
}

TEST_CASE("http1: a failed parser stays failed until reset") {
    http1::response_parser p;
    CHECK(p.parse("HTTP/1.1 999999\r\n\r\n").kind == http1::event::error);
    CHECK(p.failed());
    const auto s = p.parse("HTTP/1.1 200 OK\r\n\r\n");
    CHECK(s.kind == http1::event::error);
    CHECK(s.consumed == 0);
    CHECK(p.eof().kind == http1::event::error);
    p.reset();
    CHECK_FALSE(p.failed());
    CHECK_FALSE(p.last_error());
    CHECK(run_http(p, chunks{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n!"}).transcript ==
          "200 'OK' ka=1 [Content-Length=1;] body='!'\n");
}

TEST_CASE("http1: the head stays readable after done, until the next response starts") {
    http1::response_parser p;
    const std::string two = "HTTP/1.1 201 Created\r\nX-A: 1\r\nContent-Length: 0\r\n\r\nHTTP/1.1 202 Accepted\r\n\r\n";
    auto s = p.parse(two);
    REQUIRE(s.kind == http1::event::headers);
    std::string_view rest = std::string_view(two).substr(s.consumed);
    REQUIRE(p.parse(rest).kind == http1::event::done);
    CHECK(p.status() == 201);
    CHECK(p.head().find("x-a") == "1");
    CHECK(p.parse("").kind == http1::event::need_more);
    CHECK(p.status() == 201);
    s = p.parse(rest);
    CHECK(s.kind == http1::event::headers);
    CHECK(p.status() == 202);
}

TEST_CASE("http1: steady-state parsing does not allocate" * doctest::skip(!mlt_test::counts_allocations)) {
    const std::string responses =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: 4f1c\r\nContent-Length: 11\r\n\r\n"
        "{\"id\":1234}"
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n"
        "14\r\nevent: message\ndata:\r\n0\r\n\r\n";
    http1::response_parser p;
    std::string body;
    body.reserve(256);
    const auto once = [&] {
        std::string_view in = responses;
        int done = 0;
        while (!in.empty()) {
            const auto s = p.parse(in);
            in.remove_prefix(s.consumed);
            if (s.kind == http1::event::body) body.append(s.body);
            if (s.kind == http1::event::done) ++done;
            if (s.kind == http1::event::error) FAIL(p.last_error().message);
        }
        while (p.parse("").kind == http1::event::done) ++done;
        body.clear();
        return done;
    };
    REQUIRE(once() == 2);  // warm-up: the head buffer and field vector grow once
    counting = true;
    allocations = 0;
    int done = 0;
    for (int i = 0; i < 100; ++i) done += once();
    counting = false;
    CHECK(done == 200);
    CHECK(allocations.load() == 0);
}

// =============================================================================================
// Server-Sent Events

TEST_CASE("sse: fields, multi-line data and dispatch at every split point") {
    check_sse_every_split("event: update\ndata: first\ndata: second\nid: 7\n\ndata: {\"jsonrpc\":\"2.0\"}\n\n",
                          {"update|first\nsecond|7|data", "message|{\"jsonrpc\":\"2.0\"}|7|data"});
}

TEST_CASE("sse: CRLF, LF and CR line endings, including a CRLF split across chunks") {
    check_sse_every_split("data: a\r\ndata: b\rdata: c\n\r\n", {"message|a\nb\nc||data"});
    check_sse_every_split("data: x\r\r\ndata: y\r\n\r\n", {"message|x||data", "message|y||data"});
    check_sse_every_split("data: 1\r\rdata: 2\n\ndata: 3\r\n\r\n",
                          {"message|1||data", "message|2||data", "message|3||data"});
    // The LF completing a CR that ended the previous chunk is not a blank line: one event.
    sse::parser p;
    bool ok = false;
    CHECK(run_sse(p, chunks{"data: x\r", "\ndata: y\n\n"}, &ok) == std::vector<std::string>{"message|x\ny||data"});
    CHECK(ok);
}

TEST_CASE("sse: comments, colons and spaces") {
    sse::parser p;
    CHECK(run_sse(p, chunks{": keep-alive\n\n:\n\n: more\r\n"}).empty());
    CHECK(p.comments() == 3);
    check_sse_every_split("data:no-space\n\n", {"message|no-space||data"});
    check_sse_every_split("data:  two spaces\n\n", {"message| two spaces||data"});  // only one space is removed
    check_sse_every_split("data: a: b :c\n\n", {"message|a: b :c||data"});
    check_sse_every_split("data\n\n", {"message|||data"});                      // no colon: empty value
    check_sse_every_split("data\ndata\ndata: z\n\n", {"message|\n\nz||data"});  // each data line adds a line
    check_sse_every_split("data:\n\n", {"message|||data"});                 // WHATWG dispatches an empty message here
    check_sse_every_split("Data: x\ndata : y\n\n", {"message|||no-data"});  // names are exact
    check_sse_every_split("\n\r\n\r\r\n", {});                              // blank lines alone dispatch nothing
    check_sse_every_split("foo: bar\ndata: x\nverylongunknownfieldname: z\n\n", {"message|x||data"});
}

TEST_CASE("sse: event type resets, id persists, NUL ids are ignored") {
    check_sse_every_split("event: ping\ndata: 1\n\ndata: 2\n\n", {"ping|1||data", "message|2||data"});
    sse::parser p;
    std::vector<std::string> events =
        run_sse(p, chunks{"id: 1\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\nid\ndata: d\n\nid: 5\n"sv});
    CHECK(events ==
          std::vector<std::string>{"message|a|1|data", "message|b|1|data", "message|c|1|data", "message|d||data"});
    // The id of a block is the last event ID only once the block is dispatched.
    CHECK(p.last_event_id() == "");
    CHECK(p.mid_event());
    events = run_sse(p, chunks{"\n"});
    CHECK(events == std::vector<std::string>{"message||5|no-data"});
    CHECK(p.last_event_id() == "5");
    CHECK_FALSE(p.mid_event());
}

TEST_CASE("sse: priming events (id, no data) are reported but are not messages") {
    // MCP 2025-11-25: a server may open a stream with an event ID and an empty data field.
    check_sse_every_split("id: stream-1/0\n\nid: stream-1/1\ndata: {}\n\n",
                          {"message||stream-1/0|no-data", "message|{}|stream-1/1|data"});
    check_sse_every_split("retry: 3000\n\n", {"message|||no-data"});
}

TEST_CASE("sse: retry takes digits only") {
    sse::parser p;
    (void)run_sse(p, chunks{"retry: 2500\n"});
    CHECK(p.retry_ms() == 2500u);
    (void)run_sse(p, chunks{"retry: 30a\nretry:\nretry: -1\nretry: 1.5\n"});
    CHECK(p.retry_ms() == 2500u);
    (void)run_sse(p, chunks{"retry: 1", "0\n"});
    CHECK(p.retry_ms() == 10u);
    (void)run_sse(p, chunks{"retry:99999999999999999999999999\n"});
    CHECK(p.retry_ms() == UINT64_MAX);  // saturates rather than wrapping
}

TEST_CASE("sse: a byte order mark is skipped at the start of the stream only") {
    check_sse_every_split(
        "\xEF\xBB\xBF"
        "data: x\n\n",
        {"message|x||data"});
    // Later, the same bytes are part of a field name (an unknown field).
    check_sse_every_split(
        "data: x\n\n\xEF\xBB\xBF"
        "data: y\n\n",
        {"message|x||data", "message|||no-data"});
    // A partial BOM is text, not dropped: this line's field name is "\xEF" "data".
    check_sse_every_split(
        "\xEF"
        "data: x\n\ndata: y\n\n",
        {"message|||no-data", "message|y||data"});
    check_sse_every_split(
        "\xEF\xBB"
        "data: x\n\n",
        {"message|||no-data"});
}

TEST_CASE("sse: the event size limit fails fast with a clear error") {
    sse::parser p(16);
    CHECK(p.feed("data: 0123456789", [](const sse::event&) {}));
    CHECK_FALSE(p.feed("0123456789", [](const sse::event&) { FAIL("no event expected"); }));  // no line end needed
    CHECK(p.last_error().code == sse::errc::event_too_large);
    CHECK(contains(p.last_error().message, "16 bytes"));
    CHECK(contains(p.last_error().message, "max_event_bytes"));
    CHECK_FALSE(p.feed("\n\n", [](const sse::event&) { FAIL("a failed parser delivers nothing"); }));
    // Data lines add up, newlines included; event and id count too.
    sse::parser q(16);
    CHECK(q.feed("data: 12345678\ndata: 123456\n\n", [](const sse::event&) {}));  // 9 + 7 = 16
    CHECK_FALSE(q.failed());
    CHECK_FALSE(q.feed("event: 12345678\ndata: 12345678\n", [](const sse::event&) {}));
    // restart() recovers and keeps the last event ID.
    sse::parser r(64);
    CHECK(r.feed("id: 9\ndata: a\n\ndata: " + std::string(100, 'x'), [](const sse::event&) {}) == false);
    r.restart();
    CHECK(r.last_event_id() == "9");
    std::vector<std::string> events = run_sse(r, chunks{"\xEF\xBB\xBF"
                                                        "data: b\n\n"});
    CHECK(events == std::vector<std::string>{"message|b|9|data"});
}

TEST_CASE("sse: a throwing callback leaves the parser usable") {
    sse::parser p;
    CHECK_THROWS_AS(p.feed("data: boom\n\n", [](const sse::event&) { throw std::runtime_error("x"); }),
                    std::runtime_error);
    CHECK(run_sse(p, chunks{"data: next\n\n"}) == std::vector<std::string>{"message|next||data"});
}

TEST_CASE("sse: large data values in many pieces") {
    std::string payload;
    for (int i = 0; i < 5000; ++i) payload += static_cast<char>('a' + i % 26);
    const std::string stream = "data: " + payload + "\r\n\r\n";
    for (std::size_t piece : {1u, 7u, 100u, 4096u}) {
        sse::parser p;
        chunks input;
        for (std::size_t i = 0; i < stream.size(); i += piece)
            input.push_back(std::string_view(stream).substr(i, piece));
        CHECK(run_sse(p, input) == std::vector<std::string>{"message|" + payload + "||data"});
    }
}

// =============================================================================================
// SHA-1 and base64

TEST_CASE("sha1: FIPS 180 and boundary vectors") {
    using d::sha1;
    CHECK(hex(sha1::of("")) == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    CHECK(hex(sha1::of("abc")) == "a9993e364706816aba3e25717850c26c9cd0d89d");
    CHECK(hex(sha1::of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")) ==
          "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    CHECK(hex(sha1::of("The quick brown fox jumps over the lazy dog")) == "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12");
    CHECK(hex(sha1::of(std::string(1000000, 'a'))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    // Lengths around the padding boundaries (56 and 64 bytes), from Python's hashlib.
    std::string pattern;
    for (int i = 0; i < 200; ++i) pattern += static_cast<char>((i * 7 + 3) & 0xff);
    const std::pair<std::size_t, const char*> vectors[] = {
        {55, "ddf57317ef34bfee3b6df83d359098930eb278bc"},  {56, "a0d492bb0fc889d0eca3bc137066ab6f4f74f369"},
        {63, "c55856749bef509bdfe6bfebfc7bf4e793e82132"},  {64, "bede92be29c3874e1b54ddc77988d606fc857a8e"},
        {119, "504e27376a6e0f0dba8295b85cb25dc4dfa17d23"}, {120, "82134b02fb3f702491be9bed581eeab59334acb2"}};
    for (const auto& vector : vectors) {
        const std::size_t n = vector.first;  // not a structured binding: clang 14 cannot capture those
        const char* const expected = vector.second;
        CAPTURE(n);
        const std::string_view text = std::string_view(pattern).substr(0, n);
        CHECK(hex(sha1::of(text)) == expected);
        for (std::size_t piece : {1u, 3u, 63u, 64u, 65u}) {  // any update() split gives the same digest
            sha1 h;
            for (std::size_t i = 0; i < text.size(); i += piece) h.update(text.substr(i, piece));
            CHECK(hex(h.finish()) == expected);
        }
    }
}

TEST_CASE("base64: RFC 4648 vectors and errors") {
    const auto enc = [](std::string_view s) {
        return d::base64_encode(std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
    };
    const auto dec = [](std::string_view s) {
        auto v = d::base64_decode(s);
        return v ? std::string(v->begin(), v->end()) : "<error>";
    };
    const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                           {"f", "Zg=="},
                                                           {"fo", "Zm8="},
                                                           {"foo", "Zm9v"},
                                                           {"foob", "Zm9vYg=="},
                                                           {"fooba", "Zm9vYmE="},
                                                           {"foobar", "Zm9vYmFy"}};
    for (const auto& [plain, encoded] : vectors) {
        CHECK(enc(plain) == encoded);
        CHECK(dec(encoded) == plain);
    }
    CHECK(dec("Zm9vYg") == "foob");  // padding is optional
    CHECK(enc("\xff\xfe\xfd") == "//79");
    std::string error;
    CHECK_FALSE(d::base64_decode("Zm9v*mFy", &error));
    CHECK(contains(error, "invalid base64 character (code 42)"));
    CHECK_FALSE(d::base64_decode("Zm9vY", &error));
    CHECK(contains(error, "impossible length"));
    CHECK_FALSE(d::base64_decode("Zm9v YmFy"));
    // The histogram's HdrHistogram text form uses the same codec.
    mlt::latency_histogram h;
    h.record(std::chrono::microseconds(1500));
    CHECK(mlt::from_hdr_base64(mlt::to_hdr_base64(h)) == h);
    CHECK_THROWS_WITH_AS((void)mlt::from_hdr_base64("HIST*AAA"), doctest::Contains("invalid base64"),
                         std::invalid_argument);
}

// =============================================================================================
// WebSocket handshake

TEST_CASE("ws: the RFC 6455 accept key, and keys") {
    CHECK(ws::accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    const std::string_view sample = "the sample nonce";
    std::array<std::uint8_t, 16> nonce{};
    std::memcpy(nonce.data(), sample.data(), 16);
    CHECK(ws::make_key(nonce) == "dGhlIHNhbXBsZSBub25jZQ==");
    const std::string a = ws::make_key(), b = ws::make_key();
    CHECK(a.size() == 24);
    CHECK(d::base64_decode(a)->size() == 16);
    CHECK(a != b);
}

TEST_CASE("ws: handshake request") {
    std::string out;
    const std::array<http1::field, 1> extra{{{"Authorization", "Bearer t"}}};
    ws::write_handshake(out, *d::parse_url("ws://localhost:3000/mcp?x=1"), "dGhlIHNhbXBsZSBub25jZQ==", "mcp", extra);
    CHECK(out ==
          "GET /mcp?x=1 HTTP/1.1\r\nHost: localhost:3000\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
          "Sec-WebSocket-Protocol: mcp\r\nAuthorization: Bearer t\r\n\r\n");
    out.clear();
    ws::write_handshake(out, "h", "/", "k");
    CHECK(out ==
          "GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: k\r\n"
          "Sec-WebSocket-Version: 13\r\n\r\n");
}

TEST_CASE("ws: validating the 101 response") {
    const std::string key = "dGhlIHNhbXBsZSBub25jZQ==";
    const auto check = [&](std::string_view response, std::string_view offered = {}) -> std::string {
        http1::response_parser p;
        const auto s = p.parse(response);
        REQUIRE((s.kind == http1::event::upgrade || s.kind == http1::event::headers));
        std::string error;
        return ws::validate_handshake(p.head(), key, offered, &error) ? "ok" : error;
    };
    const std::string good =
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n"
        "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n";
    CHECK(check(good + "\r\n") == "ok");
    CHECK(check(good + "Sec-WebSocket-Protocol: mcp\r\n\r\n", "json, mcp") == "ok");
    CHECK(contains(check("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n"),
                   "answered 403 'Forbidden' instead of 101"));
    CHECK(contains(check("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
                         "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"),
                   "lacks 'Upgrade: websocket' (it is missing)"));
    CHECK(contains(check("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n"),
                   "got 'h2c'"));
    CHECK(contains(check("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: keep-alive\r\n\r\n"),
                   "lacks 'Connection: Upgrade' (got 'keep-alive')"));
    CHECK(contains(check("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"),
                   "no Sec-WebSocket-Accept"));
    CHECK(contains(check("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         "Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n"),
                   "expected 's3pPLMBiTxaQ9kYGzzhZRbK+xOo='"));
    CHECK(contains(check(good + "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n"), "did not offer"));
    CHECK(contains(check(good + "Sec-WebSocket-Protocol: mcp\r\n\r\n"), "none was offered"));
    CHECK(contains(check(good + "Sec-WebSocket-Protocol: other\r\n\r\n", "mcp"), "not one of those offered"));
}

// =============================================================================================
// WebSocket frame encoder

TEST_CASE("ws: client frames are masked (RFC 6455 §5.7 examples)") {
    const ws::mask_key key{0x37, 0xfa, 0x21, 0x3d};
    std::string out;
    ws::write_frame(out, ws::opcode::text, "Hello", key);
    CHECK(out == bytes_of({0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}));
    out.clear();
    ws::write_frame(out, ws::opcode::ping, "Hello", key);
    CHECK(out == bytes_of({0x89, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}));
    out.clear();
    ws::write_frame(out, ws::opcode::text, "Hel", key, false);  // a first fragment: no FIN
    CHECK(static_cast<unsigned char>(out[0]) == 0x01);
    out.clear();
    ws::write_frame(out, ws::opcode::continuation, "lo", key);
    CHECK(static_cast<unsigned char>(out[0]) == 0x80);
    // Random keys: the mask bit is set and the payload is not sent in clear.
    out.clear();
    ws::write_frame(out, ws::opcode::binary, "payload bytes that should not be visible");
    CHECK(static_cast<unsigned char>(out[1]) == (0x80 | 40));
    CHECK_FALSE(contains(out, "should not"));
}

TEST_CASE("ws: payload length encodings") {
    const ws::mask_key key{1, 2, 3, 4};
    const auto header_of = [&](std::size_t n) {
        std::string out;
        ws::write_frame(out, ws::opcode::binary, std::string(n, 'x'), key);
        CHECK(out.size() == n + (n < 126 ? 6 : n <= 0xFFFF ? 8 : 14));
        return out.substr(0, n < 126 ? 2 : n <= 0xFFFF ? 4 : 10);
    };
    CHECK(header_of(0) == bytes_of({0x82, 0x80}));
    CHECK(header_of(125) == bytes_of({0x82, 0x80 | 125}));
    CHECK(header_of(126) == bytes_of({0x82, 0xFE, 0x00, 0x7E}));
    CHECK(header_of(65535) == bytes_of({0x82, 0xFE, 0xFF, 0xFF}));
    CHECK(header_of(65536) == bytes_of({0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0}));
    CHECK(header_of(70000) == bytes_of({0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0x11, 0x70}));
}

TEST_CASE("ws: masking, all lengths and offsets") {
    const ws::mask_key key{0xA1, 0x02, 0xF3, 0x44};
    for (std::size_t n = 0; n < 40; ++n) {
        std::string data;
        for (std::size_t i = 0; i < n; ++i) data += static_cast<char>(i * 37 + 11);
        std::string expected = data;
        for (std::size_t i = 0; i < n; ++i) expected[i] = static_cast<char>(expected[i] ^ key[i % 4]);
        std::string masked = data;
        ws::apply_mask(masked.data(), n, key);
        CAPTURE(n);
        CHECK(masked == expected);
        for (std::size_t cut = 0; cut <= n; ++cut) {  // in two parts, the second at an offset
            std::string parts = data;
            ws::apply_mask(parts.data(), cut, key);
            ws::apply_mask(parts.data() + cut, n - cut, key, cut);
            CHECK(parts == expected);
        }
    }
}

TEST_CASE("ws: close and control frames") {
    const ws::mask_key zero{0, 0, 0, 0};  // a zero key leaves the payload readable
    std::string out;
    ws::write_close(out, 1000, "bye", zero);
    CHECK(out == bytes_of({0x88, 0x85, 0, 0, 0, 0, 0x03, 0xE8, 'b', 'y', 'e'}));
    out.clear();
    ws::write_close(out, 1005, "ignored", zero);  // 1005 means "no status": an empty close
    CHECK(out == bytes_of({0x88, 0x80, 0, 0, 0, 0}));
    // The reason is cut to 123 bytes, not inside a UTF-8 character.
    out.clear();
    std::string reason(122, 'r');
    reason += "\xE2\x82\xAC";  // 125 bytes; the euro sign straddles byte 123
    ws::write_close(out, 1001, reason, zero);
    CHECK(out.size() == 6 + 2 + 122);
    CHECK(out.substr(8) == std::string(122, 'r'));
    CHECK_THROWS_AS(ws::write_frame(out, ws::opcode::ping, std::string(126, 'p'), zero), std::invalid_argument);
    CHECK_THROWS_AS(ws::write_frame(out, ws::opcode::pong, "x", zero, false), std::invalid_argument);
    CHECK_NOTHROW(ws::write_frame(out, ws::opcode::ping, std::string(125, 'p'), zero));
}

// =============================================================================================
// WebSocket frame decoder

TEST_CASE("ws: unfragmented frames at every split point") {
    // RFC 6455 §5.7: an unmasked text frame, then a pong, a binary frame and an empty text.
    const std::string stream = bytes_of({0x81, 0x05, 'H', 'e', 'l', 'l', 'o'}) + server_frame(0x8A, "pong!") +
                               server_frame(0x82, "\x00\x01\xff"s) + server_frame(0x81, "");
    check_ws_every_split(stream, {"text:Hello", "pong:pong!", "binary:\x00\x01\xff"s, "text:"});
}

TEST_CASE("ws: fragments are reassembled, control frames interleave") {
    // RFC 6455 §5.7 fragmented "Hello", with a ping between the fragments.
    const std::string stream = bytes_of({0x01, 0x03, 'H', 'e', 'l'}) + server_frame(0x89, "are you there") +
                               bytes_of({0x80, 0x02, 'l', 'o'}) + server_frame(0x02, "bin") + server_frame(0x00, "") +
                               server_frame(0x8A, "") + server_frame(0x80, "ary");
    check_ws_every_split(stream, {"ping:are you there", "text:Hello", "pong:", "binary:binary"});
}

TEST_CASE("ws: 16- and 64-bit lengths") {
    std::string big(70000, 'q');
    big[0] = 'A';
    big.back() = 'Z';
    const std::string medium(300, 'm');
    const std::string stream = server_frame(0x81, medium) + server_frame(0x82, big);
    for (std::size_t piece : {1u, 2u, 3u, 9u, 10u, 11u, 1000u, 65536u, 100000u}) {
        ws::frame_decoder dec;
        chunks input;
        for (std::size_t i = 0; i < stream.size(); i += piece)
            input.push_back(std::string_view(stream).substr(i, piece));
        bool ok = false;
        const auto messages = run_ws(dec, input, &ok);
        CAPTURE(piece);
        CHECK(ok);
        CHECK(messages == std::vector<std::string>{"text:" + medium, "binary:" + big});
    }
}

TEST_CASE("ws: whole frames are delivered without copying") {
    const std::string stream = server_frame(0x81, "in place") + server_frame(0x01, "frag") + server_frame(0x80, "ment");
    ws::frame_decoder dec;
    std::vector<const char*> where;
    CHECK(dec.feed(stream, [&](const ws::message& m) { where.push_back(m.payload.data()); }));
    REQUIRE(where.size() == 2);
    CHECK(where[0] == stream.data() + 2);
    CHECK((where[1] < stream.data() || where[1] >= stream.data() + stream.size()));  // reassembled: a copy
}

TEST_CASE("ws: protocol violations by the server") {
    const ws::mask_key key{0x37, 0xfa, 0x21, 0x3d};
    SUBCASE("a masked server frame is rejected on its first two bytes") {
        ws::frame_decoder dec;
        CHECK_FALSE(dec.feed(server_frame(0x81, "Hello", &key).substr(0, 2), [](const ws::message&) {}));
        CHECK(dec.last_error().code == ws::errc::protocol_error);
        CHECK(contains(dec.last_error().message, "masked"));
        CHECK(contains(dec.last_error().message, "§5.1"));
        CHECK(ws::close_code_for(dec.last_error().code) == 1002);
        CHECK_FALSE(dec.feed("\x81\x00", [](const ws::message&) { FAIL("a failed decoder delivers nothing"); }));
        dec.reset();
        CHECK(run_ws(dec, chunks{"\x81\x02ok"}) == std::vector<std::string>{"text:ok"});
    }
    const auto error_of = [](std::string_view stream, ws::errc expected) {
        const ws::error e = ws_error(stream);
        CAPTURE(e.message);
        CHECK(e.code == expected);
        return e.message;
    };
    CHECK(contains(error_of("\xC1\x00"sv, ws::errc::protocol_error), "reserved bits"));  // RSV1: permessage-deflate
    CHECK(contains(error_of("\x91\x00"sv, ws::errc::protocol_error), "RSV1-3 = 1"));
    CHECK(contains(error_of("\x83\x00"sv, ws::errc::protocol_error), "unknown opcode 3"));
    CHECK(contains(error_of("\x8B\x00"sv, ws::errc::protocol_error), "unknown opcode 11"));
    CHECK(contains(error_of("\x09\x00"sv, ws::errc::protocol_error), "fragmented ping"));
    CHECK(contains(error_of("\x89\x7E\x00\x7E"sv, ws::errc::protocol_error), "more than 125"));
    CHECK(contains(error_of("\x80\x02hi"sv, ws::errc::protocol_error), "no message to continue"));
    CHECK(contains(error_of(server_frame(0x01, "a") + server_frame(0x81, "b"), ws::errc::protocol_error),
                   "before the fragmented message ended"));
    CHECK(contains(error_of("\x82\x7F\x80\x00\x00\x00\x00\x00\x00\x01"sv, ws::errc::protocol_error),
                   "most significant bit"));
}

TEST_CASE("ws: the message size limit is checked from frame headers") {
    // A 64-bit length of 1 000 000 000: fails on the 10-byte header, no payload needed.
    ws::frame_decoder dec;
    CHECK_FALSE(dec.feed("\x82\x7F\x00\x00\x00\x00\x3B\x9A\xCA\x00"sv, [](const ws::message&) {}));
    CHECK(dec.last_error().code == ws::errc::message_too_big);
    CHECK(contains(dec.last_error().message, "1000000000 bytes"));
    CHECK(contains(dec.last_error().message, "67108864"));
    CHECK(ws::close_code_for(dec.last_error().code) == 1009);
    // Fragments add up.
    ws::decoder_limits l;
    l.max_message_bytes = 10;
    const ws::error e = ws_error(server_frame(0x01, "123456") + server_frame(0x80, "789012"), l);
    CHECK(e.code == ws::errc::message_too_big);
    CHECK(contains(e.message, "12 bytes"));
    CHECK(ws_error(server_frame(0x01, "123456") + server_frame(0x80, "7890"), l).code == ws::errc::none);
    // The limit is per message.
    CHECK(ws_error(server_frame(0x81, "1234567890") + server_frame(0x81, "1234567890"), l).code == ws::errc::none);
}

TEST_CASE("ws: close frames") {
    check_ws_every_split(server_frame(0x88,
                                      "\x03\xE8"
                                      "bye"),
                         {"close:1000:bye"});
    check_ws_every_split(server_frame(0x88, ""), {"close:1005:"});
    check_ws_every_split(server_frame(0x88, "\x0B\xB8"), {"close:3000:"});
    check_ws_every_split(server_frame(0x88,
                                      "\x03\xF3"
                                      "try again"),
                         {"close:1011:try again"});
    CHECK(contains(ws_error(server_frame(0x88, "\x03"), {}).message, "1-byte"));
    for (const std::uint16_t code : {0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000}) {
        CAPTURE(code);
        const std::string payload{static_cast<char>(code >> 8), static_cast<char>(code & 0xFF)};
        const ws::error e = ws_error(server_frame(0x88, payload));
        CHECK(e.code == ws::errc::protocol_error);
        CHECK(contains(e.message, std::to_string(code)));
    }
    CHECK(ws_error(server_frame(0x88, "\x03\xE8\xC3\x28"s)).code == ws::errc::invalid_utf8);
    // Nothing may follow the server's close.
    ws::frame_decoder dec;
    std::vector<std::string> seen;
    CHECK_FALSE(dec.feed(server_frame(0x88, "\x03\xE8") + server_frame(0x81, "late"),
                         [&](const ws::message& m) { seen.push_back(render(m)); }));
    CHECK(seen == std::vector<std::string>{"close:1000:"});
    CHECK(dec.close_received());
    CHECK(dec.last_error().code == ws::errc::closed);
}

TEST_CASE("ws: UTF-8 validation of text messages") {
    CHECK(ws::valid_utf8(""));
    CHECK(ws::valid_utf8("plain ASCII that is longer than eight bytes, several times over"));
    CHECK(ws::valid_utf8("h\xC3\xA9llo \xE2\x82\xAC \xF0\x9D\x84\x9E \xF4\x8F\xBF\xBF \xEF\xBF\xBF"));
    CHECK_FALSE(ws::valid_utf8("\xC3\x28"));          // bad continuation
    CHECK_FALSE(ws::valid_utf8("\xC0\xAF"));          // overlong '/'
    CHECK_FALSE(ws::valid_utf8("\xE0\x80\xAF"));      // overlong
    CHECK_FALSE(ws::valid_utf8("\xED\xA0\x80"));      // UTF-16 surrogate
    CHECK_FALSE(ws::valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
    CHECK_FALSE(ws::valid_utf8("\xF5\x80\x80\x80"));
    CHECK_FALSE(ws::valid_utf8("abcdefgh\xE2\x82"));  // truncated after the fast path
    CHECK_FALSE(ws::valid_utf8("\xFF"));
    CHECK_FALSE(
        ws::valid_utf8("01234567\x80"
                       "01234567"));  // lone continuation byte

    const ws::error e = ws_error(server_frame(0x81, "bad \xC3\x28"));
    CHECK(e.code == ws::errc::invalid_utf8);
    CHECK(contains(e.message, "\\xc3("));
    CHECK(ws::close_code_for(e.code) == 1007);
    // A character split across fragments is fine once reassembled.
    check_ws_every_split(server_frame(0x01, "\xE2\x82") + server_frame(0x80, "\xAC"), {"text:\xE2\x82\xAC"});
    // Binary messages are not checked; with validation off, text is not either.
    CHECK(ws_error(server_frame(0x82, "\xC3\x28")).code == ws::errc::none);
    ws::decoder_limits off;
    off.validate_utf8 = false;
    CHECK(ws_error(server_frame(0x81, "\xC3\x28"), off).code == ws::errc::none);
}

TEST_CASE("ws: mid_message tells a clean end from a cut one") {
    ws::frame_decoder dec;
    const auto ignore = [](const ws::message&) {};
    CHECK_FALSE(dec.mid_message());
    CHECK(dec.feed("\x81", ignore));
    CHECK(dec.mid_message());
    CHECK(
        dec.feed("\x03"
                 "ab",
                 ignore));
    CHECK(dec.mid_message());
    CHECK(dec.feed("c", ignore));
    CHECK_FALSE(dec.mid_message());
    CHECK(dec.feed(server_frame(0x01, "part"), ignore));
    CHECK(dec.mid_message());
}

// =============================================================================================
// Found by fuzzing (issue 15)

TEST_CASE("http1: the error does not depend on how the bytes are split") {
    // A non-HTTP head longer than the limit was header_too_large whole and bad_status_line when
    // its first bytes came alone. The status line is now checked byte by byte as it arrives,
    // before the size limit, so the first problem in byte order is the one reported.
    http1::limits l;
    l.max_header_bytes = 34;
    const std::pair<std::string, http1::errc> cases[] = {
        {"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3 and more", http1::errc::bad_status_line},
        {"HTTP/1.1 2x0 Bad digit in the status and a long reason\r\n\r\n", http1::errc::bad_status_line},
        {"HTTP/1.1 200OK-and-a-long-reason-phrase-too-long\r\n\r\n", http1::errc::bad_status_line},
        {"HTTP/1.1\r\nContent-Length: 0\r\nX-Filler: aaaaaaaaaaaaaaaaaa\r\n\r\n", http1::errc::bad_status_line},
        {"HTTP/1.1 200 OK\r\nX-Filler: aaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n", http1::errc::header_too_large},
        {"HTTP/1.1 200 OK with a reason phrase longer than the limit\r\n\r\n", http1::errc::header_too_large},
    };
    for (const auto& [msg, expected] : cases) {
        CAPTURE(msg);
        for_each_chunking(msg, [&](const chunks& input) {
            http1::response_parser p(l);
            const http_run r = run_http(p, input, true);
            CAPTURE(input.size());
            CAPTURE(input.front().size());
            REQUIRE(r.error == expected);
        });
    }
}

TEST_CASE("json scanner and WebSocket decoder agree on UTF-8, exhaustively to three bytes") {
    // Two validators of RFC 3629 in the library must not disagree: every 1-, 2- and
    // 3-byte sequence, and 4-byte ones with every second byte and boundary values
    // elsewhere, inside a JSON string (a '"' or '\\' would end or escape it: skipped).
    std::string line = R"({"text":")";
    const std::size_t at = line.size();
    std::size_t checked = 0;
    const auto check = [&](std::string_view bytes) {
        for (const char c : bytes)
            if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return;
        line.resize(at);
        line.append(bytes);
        line += "\"}";
        const bool scanner = d::envelope_scanner::scan(line).valid;
        if (scanner != ws::valid_utf8(bytes)) {
            const std::string shown = hex(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
            CAPTURE(shown);
            REQUIRE(scanner == ws::valid_utf8(bytes));
        }
        ++checked;
    };
    char b[4];
    for (int x = 0; x < 256; ++x) {
        b[0] = static_cast<char>(x);
        check({b, 1});
        for (int y = 0; y < 256; ++y) {
            b[1] = static_cast<char>(y);
            check({b, 2});
            if (x < 0xE0) continue;  // a third byte only matters after a 3- or 4-byte lead
            for (int z = 0; z < 256; ++z) {
                b[2] = static_cast<char>(z);
                check({b, 3});
            }
        }
    }
    const int edges[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xF4, 0xFF};
    for (int x = 0xF0; x < 0x100; ++x)
        for (int y = 0; y < 256; ++y)
            for (int z : edges)
                for (int w : edges) {
                    b[0] = static_cast<char>(x), b[1] = static_cast<char>(y), b[2] = static_cast<char>(z),
                    b[3] = static_cast<char>(w);
                    check({b, 4});
                }
    CHECK(checked > 1'500'000);
}

TEST_CASE("http1: a close-delimited body over the limit delivers the same bytes however split") {
    // Whole, a piece crossing the limit failed before any of it was delivered; split, the part
    // before the cut was delivered first. Now the bytes up to the limit are always delivered,
    // then the error.
    http1::limits l;
    l.max_body_bytes = 10;
    for_each_chunking("HTTP/1.1 200 OK\r\n\r\n0123456789abc", [&](const chunks& input) {
        http1::response_parser p(l);
        std::string body;
        http1::errc error = http1::errc::none;
        for (std::string_view in : input) {
            for (bool more = true; more && error == http1::errc::none;) {
                const http1::step s = p.parse(in);
                in.remove_prefix(s.consumed);
                if (s.kind == http1::event::body) body += s.body;
                if (s.kind == http1::event::error) error = p.last_error().code;
                more = s.kind != http1::event::need_more;
            }
        }
        CAPTURE(input.size());
        CAPTURE(input.front().size());
        REQUIRE(body == "0123456789");
        REQUIRE(error == http1::errc::body_too_large);
    });
}

TEST_CASE("jsonrpc writer: tools/call lines, the sized hot path and the general one agree") {
    // The hot path (legacy era, no progress, a name without escapes) writes in
    // place; every other case appends piece by piece. Both must write the same
    // envelope and point at the params' members.
    const auto write = [](std::uint64_t id, std::string_view name, std::string_view args, d::request_meta meta,
                          std::string prefix = {}) {
        std::string line = std::move(prefix);
        const std::uint32_t members_at = d::write_tool_call(line, id, name, args, meta);
        return std::pair{line, members_at};
    };
    for (const std::uint64_t id : {0ULL, 7ULL, 1234567890123ULL, 18446744073709551615ULL}) {
        const auto [line, at] = write(id, "echo", R"({"message":"x"})", {});
        CHECK(line == R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                          R"(,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}})" + "\n");
        CHECK(line.substr(at, 7) == R"("name":)");
    }
    {  // an escaped name: the general path
        const auto [line, at] = write(3, "a\"b\n", "{}", {});
        CHECK(line == R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a\"b\n","arguments":{}}})"
                      "\n");
        CHECK(line.substr(at, 7) == R"("name":)");
    }
    {  // progress asked for: the token is the id
        d::request_meta meta;
        meta.progress = true;
        const auto [line, at] = write(9, "echo", "{}", meta);
        CHECK(line == R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{},)"
                      R"("_meta":{"progressToken":9}}})" "\n");
        CHECK(line.substr(at, 7) == R"("name":)");
    }
    {  // the modern era: its _meta first
        const std::string members = R"("k":1)";
        d::request_meta meta;
        meta.modern_members = &members;
        const auto [line, at] = write(5, "echo", "{}", meta);
        CHECK(line == R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"k":1},"name":"echo",)"
                      R"("arguments":{}}})" "\n");
        CHECK(line.substr(at, 8) == R"("_meta":)");
    }
    // A reused buffer, shorter or longer than the line, on both paths: written over, nothing of it left.
    for (const std::string& old : {std::string("xyz"), std::string(300, 'x')}) {
        const auto [line, at] = write(1, "t", "{}", {}, old);
        CHECK(line == R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}})" "\n");
        CHECK(line.substr(at, 7) == R"("name":)");
        const auto [escaped, escaped_at] = write(1, "t\"", "{}", {}, old);
        CHECK(escaped == R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t\"","arguments":{}}})" "\n");
        CHECK(escaped.substr(escaped_at, 7) == R"("name":)");
    }
}

TEST_CASE("jsonrpc writer: a request's id written over the last one, at every change of its length") {
    // refill_tool_call's way: the line of the last call, given the next id. Where
    // the digits fit exactly, the result is the line written afresh; else nothing
    // changes and the caller writes it all.
    const std::string members = R"("protocolVersion":"x")";
    d::request_meta modern;
    modern.modern_members = &members;
    const auto tool_call = [&](std::uint64_t id, bool is_modern) {
        std::string line;
        d::write_tool_call(line, id, "echo", R"({"message":"x"})", is_modern ? modern : d::request_meta{});
        return line;
    };
    const auto other = [](std::uint64_t id) {
        std::string line;
        d::write_request(line, id, "resources/read", mlt::json{{"uri", "file:///a"}}, nullptr, false);
        return line;
    };
    const std::vector<std::uint64_t> ids = {0, 1, 8, 9, 10, 11, 98, 99, 100, 999, 1000, 12345, 99999999, 100000000,
                                            9999999999999999ULL, 10000000000000000ULL, 9999999999999999999ULL,
                                            10000000000000000000ULL, 18446744073709551614ULL, 18446744073709551615ULL};
    const auto digits = [](std::uint64_t v) { return std::to_string(v).size(); };
    int rewritten = 0;
    for (const std::uint64_t old_id : ids) {
        for (const std::uint64_t id : ids) {
            const bool fits = id > old_id && digits(id) == digits(old_id);
            for (int kind = 0; kind < 3; ++kind) {
                const auto write = [&](std::uint64_t i) { return kind == 2 ? other(i) : tool_call(i, kind == 1); };
                const std::string before = write(old_id);
                std::string line = before;
                CAPTURE(before);
                CAPTURE(id);
                CHECK(d::rewrite_request_id(line, old_id, id) == fits);
                CHECK(line == (fits ? write(id) : before));
                rewritten += fits;
            }
        }
    }
    CHECK(rewritten == 16 * 3);  // pairs of ids of one length, on each of the three lines
}

TEST_CASE("http dates: the three forms RFC 9110 makes a recipient read, and Retry-After") {
    using mcp_loadtest::detail::parse_http_date;
    using mcp_loadtest::detail::parse_retry_after;
    const std::int64_t now = 1'795'000'000;  // 2026-11-18
    // RFC 9110's own example instant, 784111777, in each form.
    CHECK(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", now) == 784111777);
    CHECK(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", now) == 784111777);
    CHECK(parse_http_date("Sun Nov  6 08:49:37 1994", now) == 784111777);
    CHECK(parse_http_date("Sun Nov 16 08:49:37 1994", now) == 784111777 + 10 * 86400);
    // The calendar: the epoch, a leap day, the end of a century that is not a leap year.
    CHECK(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT", now) == 0);
    CHECK(parse_http_date("Thu, 29 Feb 2024 12:00:00 GMT", now) == 1709208000);
    CHECK_FALSE(parse_http_date("Thu, 29 Feb 2100 12:00:00 GMT", now));
    CHECK_FALSE(parse_http_date("Mon, 31 Apr 2026 00:00:00 GMT", now));
    // RFC 850 two-digit years: within 50 years ahead of now, else the century before.
    CHECK(parse_http_date("Thursday, 01-Jan-60 00:00:00 GMT", now) == 2840140800);  // 2060: 34 years ahead
    CHECK(parse_http_date("Friday, 01-Jan-99 00:00:00 GMT", now) == 915148800);      // 1999, not 2099
    // Not dates: another zone, lower case, missing parts, trailing text.
    for (const char* bad : {"Sun, 06 Nov 1994 08:49:37 UTC", "sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994",
                            "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT x", "Sun, 06 Nov 1994 24:00:00 GMT",
                            "Someday, 06-Nov-94 08:49:37 GMT", "", "tomorrow"})
        CHECK_MESSAGE(!parse_http_date(bad, now), bad);

    using std::chrono::seconds;
    CHECK(parse_retry_after("120", now) == seconds(120));
    CHECK(parse_retry_after(" 0 ", now) == seconds(0));
    CHECK_FALSE(parse_retry_after("-5", now));
    CHECK_FALSE(parse_retry_after("1.5", now));
    CHECK_FALSE(parse_retry_after("9999999999", now));
    CHECK(parse_retry_after("Wed, 18 Nov 2026 11:07:00 GMT", now) == seconds(20));  // 20 s after `now`
    CHECK(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now) == seconds(0));  // already past: at once
    CHECK_FALSE(parse_retry_after("soon", now));
}
