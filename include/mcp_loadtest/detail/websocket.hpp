// WebSocket (RFC 6455), client side, for the WebSocket transport: the opening handshake
// (request, and validation of the server's 101 as parsed by http1::response_parser), a frame
// encoder and an incremental frame decoder. I/O-free.
//
// The decoder is strict about what RFC 6455 makes the client's job to reject (masked server
// frames, reserved bits, bad control frames, invalid UTF-8), because finding server bugs is the
// point of a load tester. It checks the message size limit from each frame header, before any
// payload is read, so a server announcing a gigabyte costs nothing. Unfragmented frames that
// arrive whole are delivered as views into the caller's buffer; only fragments and partial
// frames are copied.
#pragma once

#include <mcp_loadtest/detail/base64.hpp>
#include <mcp_loadtest/detail/http1.hpp>
#include <mcp_loadtest/detail/sha1.hpp>
#include <mcp_loadtest/detail/url.hpp>
#include <mcp_loadtest/detail/wire_text.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail::ws {

inline constexpr std::string_view accept_guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

enum class opcode : std::uint8_t { continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA };

[[nodiscard]] constexpr std::string_view to_string(opcode op) noexcept {
    switch (op) {
        case opcode::continuation:
            return "continuation";
        case opcode::text:
            return "text";
        case opcode::binary:
            return "binary";
        case opcode::close:
            return "close";
        case opcode::ping:
            return "ping";
        case opcode::pong:
            return "pong";
    }
    return "unknown";
}

namespace impl {

// splitmix64 over a per-thread state seeded once from std::random_device: handshake nonces
// and masking keys must be unpredictable to intermediaries (RFC 6455 §10.3), not secret.
inline std::uint64_t random_u64() {
    thread_local std::uint64_t state = [] {
        std::random_device device;
        return (std::uint64_t{device()} << 32) ^ device();
    }();
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

}  // namespace impl

// ---------------------------------------------------------------------------------------------
// Opening handshake (RFC 6455 §4.1)

/// Sec-WebSocket-Key from a caller-chosen nonce (tests) ...
[[nodiscard]] inline std::string make_key(std::span<const std::uint8_t, 16> nonce) { return base64_encode(nonce); }

/// ... or from 16 random bytes.
[[nodiscard]] inline std::string make_key() {
    std::array<std::uint8_t, 16> nonce{};
    for (std::size_t i = 0; i < nonce.size(); i += 8) {
        const std::uint64_t r = impl::random_u64();
        std::memcpy(nonce.data() + i, &r, 8);
    }
    return make_key(nonce);
}

/// The Sec-WebSocket-Accept a server must answer to `key`: base64(SHA-1(key + GUID)).
[[nodiscard]] inline std::string accept_key(std::string_view key) {
    return base64_encode(sha1{}.update(key).update(accept_guid).finish());
}

/// Appends the upgrade request. `protocols` is the Sec-WebSocket-Protocol value to offer
/// (comma-separated; empty: none); `extra` headers are copied as given (see http1::valid_field).
/// No extensions are offered: the decoder rejects frames that would need one.
inline void write_handshake(std::string& out, std::string_view host, std::string_view target, std::string_view key,
                            std::string_view protocols = {}, std::span<const http1::field> extra = {}) {
    out.append("GET ").append(target).append(" HTTP/1.1\r\nHost: ").append(host);
    out.append("\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ").append(key);
    out.append("\r\nSec-WebSocket-Version: 13\r\n");
    if (!protocols.empty()) out.append("Sec-WebSocket-Protocol: ").append(protocols).append("\r\n");
    for (const http1::field& f : extra) out.append(f.name).append(": ").append(f.value).append("\r\n");
    out.append("\r\n");
}

inline void write_handshake(std::string& out, const url& u, std::string_view key, std::string_view protocols = {},
                            std::span<const http1::field> extra = {}) {
    write_handshake(out, u.host_header(), u.target, key, protocols, extra);
}

/// Checks the server's answer to the handshake (RFC 6455 §4.1, the client's steps 1-6): status
/// 101, Upgrade: websocket, Connection: Upgrade, the Sec-WebSocket-Accept matching `key`, no
/// extension (none was offered) and a subprotocol only among those offered. On failure returns
/// false and, if `error` is given, which check failed and what the server sent.
[[nodiscard]] inline bool validate_handshake(const http1::response_head& head, std::string_view key,
                                             std::string_view offered_protocols = {}, std::string* error = nullptr) {
    const auto fail = [&](std::string why) {
        if (error) *error = "WebSocket handshake failed: " + std::move(why);
        return false;
    };
    const auto shown = [](std::optional<std::string_view> v) {
        return v ? "got " + excerpt(*v, 60) : std::string("it is missing");
    };
    if (head.status != 101)
        return fail("the server answered " + std::to_string(head.status) + " " + excerpt(head.reason, 60) +
                    " instead of 101 Switching Protocols (is this a WebSocket endpoint?)");
    if (!head.has_token("upgrade", "websocket"))
        return fail("the 101 response lacks 'Upgrade: websocket' (" + shown(head.find("upgrade")) + ")");
    if (!head.has_token("connection", "upgrade"))
        return fail("the 101 response lacks 'Connection: Upgrade' (" + shown(head.find("connection")) + ")");
    const auto accept = head.find("sec-websocket-accept");
    if (!accept) return fail("the 101 response has no Sec-WebSocket-Accept header");
    if (const std::string expected = accept_key(key); *accept != expected)
        return fail("Sec-WebSocket-Accept is " + excerpt(*accept, 60) + ", expected '" + expected + "' for the key '" +
                    std::string(key) + "'");
    if (const auto ext = head.find("sec-websocket-extensions"); ext && !ext->empty())
        return fail("the server selected the extension " + excerpt(*ext, 60) + ", which the client did not offer");
    if (const auto proto = head.find("sec-websocket-protocol"); proto && !proto->empty()) {
        if (offered_protocols.empty())
            return fail("the server selected the subprotocol " + excerpt(*proto, 60) + " but none was offered");
        if (!list_has_token(offered_protocols, *proto))
            return fail("the server selected the subprotocol " + excerpt(*proto, 60) + ", not one of those offered (" +
                        std::string(offered_protocols) + ")");
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// Frame encoder (client frames are always masked, RFC 6455 §5.3)

using mask_key = std::array<std::uint8_t, 4>;

[[nodiscard]] inline mask_key random_mask() {
    const auto r = static_cast<std::uint32_t>(impl::random_u64());
    mask_key key{};
    std::memcpy(key.data(), &r, 4);
    return key;
}

/// XORs `n` bytes with the key, the first byte being at position `offset` of the payload.
inline void apply_mask(char* data, std::size_t n, mask_key key, std::size_t offset = 0) noexcept {
    unsigned char pattern[8];
    for (std::size_t i = 0; i < 8; ++i) pattern[i] = key[(i + offset) & 3];
    std::uint64_t wide;
    std::memcpy(&wide, pattern, 8);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {  // 8 bytes at a time; the compiler widens this further
        std::uint64_t v;
        std::memcpy(&v, data + i, 8);
        v ^= wide;
        std::memcpy(data + i, &v, 8);
    }
    for (; i < n; ++i) data[i] = static_cast<char>(data[i] ^ pattern[i & 7]);
}

/// Appends one masked frame. Control frames (close, ping, pong) must have fin set and at most
/// 125 payload bytes: std::invalid_argument otherwise, since that is a caller bug.
inline void write_frame(std::string& out, opcode op, std::string_view payload, mask_key key, bool fin = true) {
    const bool control = (static_cast<std::uint8_t>(op) & 0x8) != 0;
    if (control && (payload.size() > 125 || !fin))
        throw std::invalid_argument("WebSocket " + std::string(to_string(op)) +
                                    " frames must be unfragmented with at most 125 payload bytes (got " +
                                    std::to_string(payload.size()) + ")");
    char head[14];
    std::size_t h = 0;
    head[h++] = static_cast<char>((fin ? 0x80 : 0x00) | static_cast<std::uint8_t>(op));
    const std::uint64_t n = payload.size();
    if (n < 126) {
        head[h++] = static_cast<char>(0x80 | n);
    } else if (n <= 0xFFFF) {
        head[h++] = static_cast<char>(0x80 | 126);
        head[h++] = static_cast<char>(n >> 8);
        head[h++] = static_cast<char>(n & 0xFF);
    } else {
        head[h++] = static_cast<char>(0x80 | 127);
        for (int shift = 56; shift >= 0; shift -= 8) head[h++] = static_cast<char>((n >> shift) & 0xFF);
    }
    std::memcpy(head + h, key.data(), 4);
    h += 4;
    out.reserve(out.size() + h + payload.size());
    out.append(head, h);
    const std::size_t at = out.size();
    out.append(payload);
    apply_mask(out.data() + at, payload.size(), key);
}

/// As above with a fresh random masking key.
inline void write_frame(std::string& out, opcode op, std::string_view payload, bool fin = true) {
    write_frame(out, op, payload, random_mask(), fin);
}

/// Appends a close frame: the status code and up to 123 bytes of reason (cut at a UTF-8
/// character boundary). Code 0, 1005, 1006 and 1015 are never sent: they give a close frame
/// without a body (what echoing a bodiless close needs).
inline void write_close(std::string& out, std::uint16_t code, std::string_view reason, mask_key key) {
    if (code == 0 || code == 1005 || code == 1006 || code == 1015) {
        write_frame(out, opcode::close, {}, key);
        return;
    }
    if (reason.size() > 123) {
        std::size_t cut = 123;
        while (cut > 0 && (static_cast<unsigned char>(reason[cut]) & 0xC0) == 0x80) --cut;
        reason = reason.substr(0, cut);
    }
    char payload[125];
    payload[0] = static_cast<char>(code >> 8);
    payload[1] = static_cast<char>(code & 0xFF);
    if (!reason.empty()) std::memcpy(payload + 2, reason.data(), reason.size());  // data() may be null
    write_frame(out, opcode::close, std::string_view(payload, 2 + reason.size()), key);
}

inline void write_close(std::string& out, std::uint16_t code = 1000, std::string_view reason = {}) {
    write_close(out, code, reason, random_mask());
}

// ---------------------------------------------------------------------------------------------
// Frame decoder (server frames)

/// RFC 3629 UTF-8 (no overlongs, surrogates or code points above U+10FFFF), with an ASCII fast
/// path of 8 bytes at a time.
[[nodiscard]] inline bool valid_utf8(std::string_view text) noexcept {
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const auto* const e = s + text.size();
    while (s < e) {
        while (e - s >= 8) {
            std::uint64_t v;
            std::memcpy(&v, s, 8);
            if ((v & 0x8080808080808080ull) != 0) break;
            s += 8;
        }
        if (s == e) break;
        const unsigned c = *s;
        if (c < 0x80) {
            ++s;
            continue;
        }
        std::ptrdiff_t n;
        unsigned lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF)
            n = 1;
        else if (c == 0xE0)
            n = 2, lo = 0xA0;
        else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
            n = 2;
        else if (c == 0xED)
            n = 2, hi = 0x9F;
        else if (c == 0xF0)
            n = 3, lo = 0x90;
        else if (c >= 0xF1 && c <= 0xF3)
            n = 3;
        else if (c == 0xF4)
            n = 3, hi = 0x8F;
        else
            return false;
        if (e - s <= n || s[1] < lo || s[1] > hi) return false;
        for (std::ptrdiff_t k = 2; k <= n; ++k)
            if ((s[k] & 0xC0) != 0x80) return false;
        s += n + 1;
    }
    return true;
}

/// Status codes a close frame may carry (RFC 6455 §7.4 and the IANA registry).
[[nodiscard]] constexpr bool valid_close_code(std::uint16_t code) noexcept {
    return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

enum class errc : std::uint8_t {
    none,
    protocol_error,   // masked frame, reserved bits, bad opcode, bad fragmentation, bad close frame
    message_too_big,  // a message over decoder_limits::max_message_bytes
    invalid_utf8,     // a text message or close reason that is not UTF-8
    closed,           // bytes after the server's close frame
};

[[nodiscard]] constexpr std::string_view to_string(errc e) noexcept {
    switch (e) {
        case errc::none:
            return "none";
        case errc::protocol_error:
            return "protocol_error";
        case errc::message_too_big:
            return "message_too_big";
        case errc::invalid_utf8:
            return "invalid_utf8";
        case errc::closed:
            return "closed";
    }
    return "unknown";
}

/// The status code to close the connection with after a decoding error (RFC 6455 §7.4.1).
[[nodiscard]] constexpr std::uint16_t close_code_for(errc e) noexcept {
    switch (e) {
        case errc::message_too_big:
            return 1009;
        case errc::invalid_utf8:
            return 1007;
        case errc::protocol_error:
        case errc::closed:
            return 1002;
        case errc::none:
            return 1000;
    }
    return 1002;
}

struct error {
    errc code = errc::none;
    std::string message;
    explicit operator bool() const noexcept { return code != errc::none; }
};

/// A whole message or control frame. Views are valid during the callback only.
struct message {
    opcode kind = opcode::text;    // text, binary, ping, pong or close
    std::string_view payload;      // the reassembled message; for close, the reason
    std::uint16_t close_code = 0;  // close: the status code, 1005 when the frame had none
};

struct decoder_limits {
    std::uint64_t max_message_bytes = 64ull * 1024 * 1024;  // a whole (reassembled) message
    bool validate_utf8 = true;  // text messages and close reasons; about 0.1 ns/byte for ASCII
};

/// Incremental decoder of server frames: fragments reassembled into messages, control frames
/// (which may come between fragments) delivered as they complete.
class frame_decoder {
public:
    explicit frame_decoder(decoder_limits l = {}) : limits_(l) {}

    /// Decodes `bytes`, calling `on_message(const ws::message&)` for each complete message and
    /// control frame. Returns false on error (see last_error(); close_code_for() gives the code
    /// to close with); the decoder then stays failed until reset(). After a close frame, any
    /// further byte is an error.
    template <class OnMessage>
    bool feed(std::string_view bytes, OnMessage&& on_message) {
        if (error_) return false;
        const char* p = bytes.data();
        const char* const end = p + bytes.size();
        while (p < end) {
            if (close_received_)
                return fail(errc::closed, std::to_string(end - p) + " bytes arrived after the server's close frame");
            if (in_header_) {
                if (head_len_ < 2) {  // the first two bytes say how long the header is
                    p += copy_header(p, end, 2);
                    if (head_len_ < 2) break;
                    if (!check_first_bytes()) return false;
                }
                const std::size_t need = header_size();
                p += copy_header(p, end, need);
                if (head_len_ < need) break;
                if (!begin_frame()) return false;
                if (remaining_ == 0 && !end_frame(on_message)) return false;
                continue;
            }
            const std::size_t avail = static_cast<std::size_t>(end - p);
            const std::size_t n = remaining_ < avail ? static_cast<std::size_t>(remaining_) : avail;
            if (control_) {
                control_.append(p, n);
            } else if (n == remaining_ && fin_ && !in_message_ && message_.empty()) {
                // A whole unfragmented frame in the caller's buffer: no copy.
                p += n;
                remaining_ = 0;
                in_header_ = true;
                if (!deliver(std::string_view(p - n, n), on_message)) return false;
                continue;
            } else {
                message_.append(p, n);
            }
            p += n;
            remaining_ -= n;
            if (remaining_ == 0 && !end_frame(on_message)) return false;
        }
        return true;
    }

    [[nodiscard]] bool close_received() const noexcept { return close_received_; }
    /// Inside a frame or a fragmented message: the connection ending now would cut a message.
    [[nodiscard]] bool mid_message() const noexcept { return !in_header_ || head_len_ > 0 || in_message_; }
    [[nodiscard]] const error& last_error() const noexcept { return error_; }
    [[nodiscard]] bool failed() const noexcept { return static_cast<bool>(error_); }
    [[nodiscard]] const decoder_limits& limits() const noexcept { return limits_; }

    void reset() noexcept {
        error_ = {};
        in_header_ = true;
        head_len_ = 0;
        in_message_ = false;
        close_received_ = false;
        message_size_ = 0;
        remaining_ = 0;
        message_.clear();
        control_.clear();
    }

private:
    // Holds the payload of the control frame being read; `active` tells control frames apart.
    struct control_buffer {
        std::string bytes;
        bool active = false;
        explicit operator bool() const noexcept { return active; }
        void append(const char* p, std::size_t n) { bytes.append(p, n); }
        void clear() noexcept {
            bytes.clear();
            active = false;
        }
    };

    bool fail(errc code, std::string message) {
        error_.code = code;
        error_.message = std::move(message);
        return false;
    }

    std::size_t copy_header(const char* p, const char* end, std::size_t need) noexcept {
        const std::size_t want = need - head_len_;
        const auto avail = static_cast<std::size_t>(end - p);
        const std::size_t n = want < avail ? want : avail;
        std::memcpy(head_.data() + head_len_, p, n);
        head_len_ += n;
        return n;
    }

    [[nodiscard]] std::size_t header_size() const noexcept {
        const unsigned len7 = head_[1] & 0x7F;
        return len7 == 126 ? 4 : len7 == 127 ? 10 : 2;
    }

    bool check_first_bytes() {
        const unsigned b0 = head_[0], b1 = head_[1];
        fin_ = (b0 & 0x80) != 0;
        op_ = static_cast<opcode>(b0 & 0x0F);
        const unsigned len7 = b1 & 0x7F;
        if ((b0 & 0x70) != 0)
            return fail(errc::protocol_error,
                        "a frame has reserved bits set (RSV1-3 = " + std::to_string((b0 >> 4) & 7) +
                            ") but no extension was negotiated (RFC 6455 §5.2)");
        if ((b1 & 0x80) != 0)
            return fail(errc::protocol_error, "the server sent a masked frame; servers must not mask (RFC 6455 §5.1)");
        switch (op_) {
            case opcode::continuation:
                if (!in_message_)
                    return fail(errc::protocol_error, "a continuation frame arrived with no message to continue");
                break;
            case opcode::text:
            case opcode::binary:
                if (in_message_)
                    return fail(errc::protocol_error,
                                "a new " + std::string(to_string(op_)) +
                                    " frame arrived before the fragmented message ended (RFC 6455 §5.4)");
                break;
            case opcode::close:
            case opcode::ping:
            case opcode::pong:
                if (!fin_)
                    return fail(errc::protocol_error,
                                "a fragmented " + std::string(to_string(op_)) + " frame (RFC 6455 §5.5)");
                if (len7 > 125)
                    return fail(errc::protocol_error, "a " + std::string(to_string(op_)) +
                                                          " frame with more than 125 payload bytes (RFC 6455 §5.5)");
                break;
            default:
                return fail(errc::protocol_error, "a frame with the unknown opcode " + std::to_string(b0 & 0x0F));
        }
        return true;
    }

    bool begin_frame() {
        const unsigned len7 = head_[1] & 0x7F;
        std::uint64_t len = len7;
        if (len7 == 126) {
            len = (std::uint64_t{head_[2]} << 8) | head_[3];
        } else if (len7 == 127) {
            len = 0;
            for (std::size_t i = 2; i < 10; ++i) len = (len << 8) | head_[i];
            if ((len >> 63) != 0)
                return fail(errc::protocol_error, "a frame length has its most significant bit set (RFC 6455 §5.2)");
        }
        head_len_ = 0;
        in_header_ = false;
        remaining_ = len;
        if ((static_cast<unsigned>(op_) & 0x8) != 0) {
            control_.clear();
            control_.active = true;
            return true;
        }
        if (len > limits_.max_message_bytes - message_size_)
            return fail(errc::message_too_big,
                        "a " + std::string(to_string(op_ == opcode::continuation ? message_opcode_ : op_)) +
                            " frame of " + std::to_string(len) + " bytes would make the message " +
                            std::to_string(message_size_ + len) + " bytes, over the " +
                            std::to_string(limits_.max_message_bytes) + "-byte limit (max_message_bytes)");
        if (op_ != opcode::continuation) message_opcode_ = op_;
        message_size_ += len;
        return true;
    }

    template <class OnMessage>
    bool end_frame(OnMessage& on_message) {
        in_header_ = true;
        if (control_) {
            const std::string_view payload = control_.bytes;
            message m;
            m.kind = op_;
            m.payload = payload;
            if (op_ == opcode::close) {
                if (payload.size() == 1) return fail(errc::protocol_error, "a close frame with a 1-byte payload");
                m.close_code = 1005;
                if (payload.size() >= 2) {
                    m.close_code = static_cast<std::uint16_t>((static_cast<unsigned char>(payload[0]) << 8) |
                                                              static_cast<unsigned char>(payload[1]));
                    m.payload = payload.substr(2);
                    if (!valid_close_code(m.close_code))
                        return fail(errc::protocol_error,
                                    "a close frame with the invalid status code " + std::to_string(m.close_code));
                    if (limits_.validate_utf8 && !valid_utf8(m.payload))
                        return fail(errc::invalid_utf8, "the close frame's reason is not UTF-8: " + excerpt(m.payload));
                }
                close_received_ = true;
            }
            control_.active = false;
            on_message(static_cast<const message&>(m));
            return true;
        }
        if (!fin_) {
            in_message_ = true;
            return true;
        }
        in_message_ = false;
        struct clear_on_exit {
            frame_decoder& d;
            ~clear_on_exit() { d.message_.clear(); }
        } guard{*this};
        return deliver(message_, on_message);
    }

    template <class OnMessage>
    bool deliver(std::string_view payload, OnMessage& on_message) {
        message_size_ = 0;
        if (message_opcode_ == opcode::text && limits_.validate_utf8 && !valid_utf8(payload))
            return fail(errc::invalid_utf8, "a text message of " + std::to_string(payload.size()) +
                                                " bytes is not UTF-8: " + excerpt(payload));
        message m;
        m.kind = message_opcode_;
        m.payload = payload;
        on_message(static_cast<const message&>(m));
        return true;
    }

    decoder_limits limits_;
    std::array<std::uint8_t, 14> head_{};
    std::size_t head_len_ = 0;
    bool in_header_ = true;
    bool fin_ = false;
    bool in_message_ = false;
    bool close_received_ = false;
    opcode op_ = opcode::text;
    opcode message_opcode_ = opcode::text;
    std::uint64_t remaining_ = 0;
    std::uint64_t message_size_ = 0;
    std::string message_;
    control_buffer control_;
    error error_;
};

}  // namespace mcp_loadtest::detail::ws
