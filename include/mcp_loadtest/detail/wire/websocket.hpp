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

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/wire/base64.hpp>
#include <mcp_loadtest/detail/wire/http1.hpp>
#include <mcp_loadtest/detail/wire/sha1.hpp>
#include <mcp_loadtest/detail/wire/url.hpp>
#include <mcp_loadtest/detail/wire/wire_text.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
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
MCP_LOADTEST_DECL std::uint64_t random_u64();

}  // namespace impl

// ---------------------------------------------------------------------------------------------
// Opening handshake (RFC 6455 §4.1)

/// Sec-WebSocket-Key from a caller-chosen nonce (tests) ...
[[nodiscard]] inline std::string make_key(std::span<const std::uint8_t, 16> nonce) { return base64_encode(nonce); }

/// ... or from 16 random bytes.
[[nodiscard]] MCP_LOADTEST_DECL std::string make_key();

/// The Sec-WebSocket-Accept a server must answer to `key`: base64(SHA-1(key + GUID)).
[[nodiscard]] MCP_LOADTEST_DECL std::string accept_key(std::string_view key);

/// Appends the upgrade request. `protocols` is the Sec-WebSocket-Protocol value to offer
/// (comma-separated; empty: none); `extra` headers are copied as given (see http1::valid_field).
/// No extensions are offered: the decoder rejects frames that would need one.
MCP_LOADTEST_DECL void write_handshake(std::string& out, std::string_view host, std::string_view target, std::string_view key,
                                       std::string_view protocols = {}, std::span<const http1::field> extra = {});

MCP_LOADTEST_DECL void write_handshake(std::string& out, const url& u, std::string_view key, std::string_view protocols = {},
                                       std::span<const http1::field> extra = {});

/// Checks the server's answer to the handshake (RFC 6455 §4.1, the client's steps 1-6): status
/// 101, Upgrade: websocket, Connection: Upgrade, the Sec-WebSocket-Accept matching `key`, no
/// extension (none was offered) and a subprotocol only among those offered. On failure returns
/// false and, if `error` is given, which check failed and what the server sent.
[[nodiscard]] MCP_LOADTEST_DECL bool validate_handshake(const http1::response_head& head, std::string_view key,
                                                        std::string_view offered_protocols = {}, std::string* error = nullptr);

// ---------------------------------------------------------------------------------------------
// Frame encoder (client frames are always masked, RFC 6455 §5.3)

using mask_key = std::array<std::uint8_t, 4>;

[[nodiscard]] MCP_LOADTEST_DECL mask_key random_mask();

/// XORs `n` bytes with the key, the first byte being at position `offset` of the payload.
MCP_LOADTEST_DECL void apply_mask(char* data, std::size_t n, mask_key key, std::size_t offset = 0) noexcept;

/// Appends one masked frame. Control frames (close, ping, pong) must have fin set and at most
/// 125 payload bytes: std::invalid_argument otherwise, since that is a caller bug.
MCP_LOADTEST_DECL void write_frame(std::string& out, opcode op, std::string_view payload, mask_key key, bool fin = true);

/// As above with a fresh random masking key.
MCP_LOADTEST_DECL void write_frame(std::string& out, opcode op, std::string_view payload, bool fin = true);

/// Appends a close frame: the status code and up to 123 bytes of reason (cut at a UTF-8
/// character boundary). Code 0, 1005, 1006 and 1015 are never sent: they give a close frame
/// without a body (what echoing a bodiless close needs).
MCP_LOADTEST_DECL void write_close(std::string& out, std::uint16_t code, std::string_view reason, mask_key key);

MCP_LOADTEST_DECL void write_close(std::string& out, std::uint16_t code = 1000, std::string_view reason = {});

// ---------------------------------------------------------------------------------------------
// Frame decoder (server frames)

/// RFC 3629 UTF-8 (no overlongs, surrogates or code points above U+10FFFF), with an ASCII fast
/// path of 8 bytes at a time.
[[nodiscard]] MCP_LOADTEST_DECL bool valid_utf8(std::string_view text) noexcept;

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

    MCP_LOADTEST_DECL void reset() noexcept;

private:
    // Holds the payload of the control frame being read; `active` tells control frames apart.
    struct control_buffer {
        std::string bytes;
        bool active = false;
        explicit operator bool() const noexcept { return active; }
        void append(const char* p, std::size_t n) { bytes.append(p, n); }
        MCP_LOADTEST_DECL void clear() noexcept;
    };

    MCP_LOADTEST_DECL bool fail(errc code, std::string message);

    MCP_LOADTEST_DECL std::size_t copy_header(const char* p, const char* end, std::size_t need) noexcept;

    [[nodiscard]] MCP_LOADTEST_DECL std::size_t header_size() const noexcept;

    MCP_LOADTEST_DECL bool check_first_bytes();

    MCP_LOADTEST_DECL bool begin_frame();

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

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/wire/impl/websocket.ipp>
#endif
