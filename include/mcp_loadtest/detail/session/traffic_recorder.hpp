// A session's live capture (client_options::record): every message in both directions,
// byte-exact, appended with a small header each to blocks that never move, so recording
// costs a copy and no allocation per message (bench_run_overhead measures it). A message
// is kept as its difference from the previous one in its direction (message_delta.hpp). Blocks
// grow from 16 KiB, so a quiet session costs little; a busy one takes 1 MiB blocks whose
// pages a background thread has already touched (prefaulted_blocks.hpp). Bounded: past
// max_bytes, messages are counted as dropped, not kept.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/clock.hpp>
#include <mcp_loadtest/detail/session/message_delta.hpp>
#include <mcp_loadtest/detail/session/prefaulted_blocks.hpp>
#include <mcp_loadtest/replay/recording.hpp>

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

class traffic_recorder {
public:
    traffic_recorder(std::size_t max_bytes, clock::time_point started) : max_bytes_(max_bytes), started_(started) {}

    /// `now`: the caller's reading of the clock for this message. On a virtual machine a
    /// clock read can cost more than the rest of recording a message, so none is taken here.
    void add(message_direction direction, std::string_view bytes, clock::time_point now) {
        // Lines are sent with their terminator; the recording keeps the message alone.
        if (direction == message_direction::sent) {
            while (!bytes.empty() && (bytes.back() == '\n' || bytes.back() == '\r')) bytes.remove_suffix(1);
        }
        if (bytes.size() > max_bytes_ - kept_bytes_) {
            ++dropped_;
            return;
        }
        const int way = direction == message_direction::sent ? 0 : 1;
        previous_message& previous_kept = previous_[way];
        const std::string_view previous(previous_kept.bytes.get(), previous_kept.size);
        const std::size_t prefix = shared_prefix(bytes, previous);
        const std::size_t suffix = shared_suffix(bytes, previous, std::min(bytes.size(), previous.size()) - prefix);
        const std::size_t middle = bytes.size() - prefix - suffix;
        const std::size_t need = max_header_size + middle;
        if (chunks_.empty() || need > chunk_capacity_ - chunks_.back().used) new_chunk(need);
        chunk& c = chunks_.back();
        // Varints written in place: a header built on the stack and copied whole stalled on
        // store forwarding, a third of the cost of recording a message.
        char* const start = c.data.get() + c.used;
        char* out = start;
        const clock::rep at = (now - started_).count();
        out = put_varint(out, zigzag(at - last_at_));
        last_at_ = at;
        out = put_varint(out, (std::uint64_t{bytes.size()} << 1) | static_cast<std::uint64_t>(way == 0));
        out = put_varint(out, prefix);
        out = put_varint(out, suffix);
        if (middle) std::memcpy(out, bytes.data() + prefix, middle);  // an empty view's data() may be null
        out += middle;
        c.used += static_cast<std::size_t>(out - start);
        kept_bytes_ += bytes.size();
        if (bytes.size() <= max_delta_base) previous_kept.assign(bytes);
    }

    /// A message too large to keep whole (transport_events::on_oversized): counted only.
    void count_dropped() noexcept { ++dropped_; }

    /// Labels the recording: what was spoken to.
    void label(std::string transport, std::string server) {
        transport_ = std::move(transport);
        server_ = std::move(server);
    }

    /// The messages so far, as the public recording type.
    [[nodiscard]] MCP_LOADTEST_DECL recorded_session snapshot(std::string_view protocol_version,
                                                              std::string_view era) const;

private:
    // Each message is a header and the bytes it does not share with the previous message
    // in its direction (message_delta.hpp), appended to chunks that never move: no
    // allocation per message, and no copying as the recording grows.
    // The header, four LEB128 varints (~6 bytes for a small message): the time since the
    // previous message (zigzag, as a sent request's time was read before it was sent), the
    // message's size shifted left by one with 1 for sent, and the bytes it shares with the
    // previous message's start and with its end.
    static constexpr std::size_t max_header_size = 4 * 10;
    static std::uint64_t zigzag(clock::rep v) noexcept {
        return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
    }
    static clock::rep unzigzag(std::uint64_t v) noexcept {
        return static_cast<clock::rep>(v >> 1) ^ -static_cast<clock::rep>(v & 1);
    }
    static char* put_varint(char* out, std::uint64_t v) noexcept {
        while (v >= 0x80) {
            *out++ = static_cast<char>(v | 0x80);
            v >>= 7;
        }
        *out++ = static_cast<char>(v);
        return out;
    }
    static std::uint64_t get_varint(const char*& in) noexcept {
        std::uint64_t v = 0;
        for (int shift = 0;; shift += 7) {
            const auto byte = static_cast<unsigned char>(*in++);
            v |= std::uint64_t{byte & 0x7fu} << shift;
            if (byte < 0x80) return v;
        }
    }
    // A larger message is kept whole and does not become the next one's base: comparing
    // with it rarely pays, and its copy would stay in memory.
    static constexpr std::size_t max_delta_base = std::size_t{64} << 10;
    struct chunk {
        std::unique_ptr<char[]> data;
        std::size_t used = 0;
    };
    static constexpr std::size_t first_chunk_size = std::size_t{16} << 10;
    static constexpr std::size_t chunk_size = prefaulted_blocks::block_size;

    void new_chunk(std::size_t need) {
        const std::size_t size =
            chunks_.empty() ? first_chunk_size : std::min(chunk_size, 2 * chunk_capacity_);
        if (need <= chunk_size && size == chunk_size) {
            if (!blocks_) blocks_ = prefaulted_blocks::acquire();
            chunk_capacity_ = chunk_size;
            chunks_.push_back(chunk{blocks_->take(), 0});
            return;
        }
        chunk_capacity_ = std::max(size, need);
        chunks_.push_back(chunk{std::unique_ptr<char[]>(new char[chunk_capacity_]), 0});
    }

    std::size_t max_bytes_;
    clock::time_point started_;
    std::chrono::system_clock::time_point started_wall_ = std::chrono::system_clock::now();
    std::string transport_, server_;
    std::vector<chunk> chunks_;
    std::size_t chunk_capacity_ = 0;  // of the last chunk
    std::shared_ptr<prefaulted_blocks> blocks_;  // held from the first 1 MiB chunk on
    // A plain buffer: std::string::assign cost a fifth of recording a message.
    struct previous_message {
        std::unique_ptr<char[]> bytes;
        std::size_t size = 0, capacity = 0;
        void assign(std::string_view m) {
            if (m.size() > capacity) {
                capacity = std::max(m.size(), std::size_t{256});
                bytes.reset(new char[capacity]);
            }
            if (!m.empty()) std::memcpy(bytes.get(), m.data(), m.size());
            size = m.size();
        }
    };
    previous_message previous_[2];  // the last message sent, received
    clock::rep last_at_ = 0;                     // the last message's time
    std::size_t kept_bytes_ = 0;      // message bytes kept (max_bytes_ bounds them)
    std::uint64_t dropped_ = 0;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/session/impl/traffic_recorder.ipp>
#endif
