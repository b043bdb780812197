// Definitions of detail/wire/websocket.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/wire/websocket.hpp>

#include <random>

namespace mcp_loadtest::detail::ws::impl {

MCP_LOADTEST_DECL std::uint64_t random_u64() {
    thread_local std::uint64_t state = [] {
        std::random_device device;
        return (std::uint64_t{device()} << 32) ^ device();
    }();
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

}  // namespace mcp_loadtest::detail::ws::impl

namespace mcp_loadtest::detail::ws {

MCP_LOADTEST_DECL std::string make_key() {
    std::array<std::uint8_t, 16> nonce{};
    for (std::size_t i = 0; i < nonce.size(); i += 8) {
        const std::uint64_t r = impl::random_u64();
        std::memcpy(nonce.data() + i, &r, 8);
    }
    return make_key(nonce);
}

MCP_LOADTEST_DECL std::string accept_key(std::string_view key) {
    return base64_encode(sha1{}.update(key).update(accept_guid).finish());
}

MCP_LOADTEST_DECL void write_handshake(std::string& out, std::string_view host, std::string_view target, std::string_view key,
                                       std::string_view protocols, std::span<const http1::field> extra) {
    out.append("GET ").append(target).append(" HTTP/1.1\r\nHost: ").append(host);
    out.append("\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ").append(key);
    out.append("\r\nSec-WebSocket-Version: 13\r\n");
    if (!protocols.empty()) out.append("Sec-WebSocket-Protocol: ").append(protocols).append("\r\n");
    for (const http1::field& f : extra) out.append(f.name).append(": ").append(f.value).append("\r\n");
    out.append("\r\n");
}

MCP_LOADTEST_DECL void write_handshake(std::string& out, const url& u, std::string_view key, std::string_view protocols,
                                       std::span<const http1::field> extra) {
    write_handshake(out, u.host_header(), u.target, key, protocols, extra);
}

MCP_LOADTEST_DECL bool validate_handshake(const http1::response_head& head, std::string_view key,
                                          std::string_view offered_protocols, std::string* error) {
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

MCP_LOADTEST_DECL mask_key random_mask() {
    const auto r = static_cast<std::uint32_t>(impl::random_u64());
    mask_key key{};
    std::memcpy(key.data(), &r, 4);
    return key;
}

MCP_LOADTEST_DECL void apply_mask(char* data, std::size_t n, mask_key key, std::size_t offset) noexcept {
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

MCP_LOADTEST_DECL void write_frame(std::string& out, opcode op, std::string_view payload, mask_key key, bool fin) {
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

MCP_LOADTEST_DECL void write_frame(std::string& out, opcode op, std::string_view payload, bool fin) {
    write_frame(out, op, payload, random_mask(), fin);
}

MCP_LOADTEST_DECL void write_close(std::string& out, std::uint16_t code, std::string_view reason, mask_key key) {
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

MCP_LOADTEST_DECL void write_close(std::string& out, std::uint16_t code, std::string_view reason) {
    write_close(out, code, reason, random_mask());
}

MCP_LOADTEST_DECL bool valid_utf8(std::string_view text) noexcept {
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

MCP_LOADTEST_DECL void frame_decoder::reset() noexcept {
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

MCP_LOADTEST_DECL void frame_decoder::control_buffer::clear() noexcept {
    bytes.clear();
    active = false;
}

MCP_LOADTEST_DECL bool frame_decoder::fail(errc code, std::string message) {
    error_.code = code;
    error_.message = std::move(message);
    return false;
}

MCP_LOADTEST_DECL std::size_t frame_decoder::copy_header(const char* p, const char* end, std::size_t need) noexcept {
    const std::size_t want = need - head_len_;
    const auto avail = static_cast<std::size_t>(end - p);
    const std::size_t n = want < avail ? want : avail;
    std::memcpy(head_.data() + head_len_, p, n);
    head_len_ += n;
    return n;
}

MCP_LOADTEST_DECL std::size_t frame_decoder::header_size() const noexcept {
    const unsigned len7 = head_[1] & 0x7F;
    return len7 == 126 ? 4 : len7 == 127 ? 10 : 2;
}

MCP_LOADTEST_DECL bool frame_decoder::check_first_bytes() {
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

MCP_LOADTEST_DECL bool frame_decoder::begin_frame() {
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

}  // namespace mcp_loadtest::detail::ws
