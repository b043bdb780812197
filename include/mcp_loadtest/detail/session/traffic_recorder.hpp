// A session's live capture (client_options::record): every message in both directions,
// byte-exact, appended to one growing buffer with a small index entry each, so recording
// costs a copy and no allocation per message (bench_run_overhead measures it). Bounded:
// past max_bytes, messages are counted as dropped, not kept.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/clock.hpp>
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
        const std::size_t need = sizeof(header) + bytes.size();
        if (chunks_.empty() || need > chunk_capacity_ - chunks_.back().used) new_chunk(need);
        chunk& c = chunks_.back();
        const header h{(now - started_).count(), static_cast<std::uint32_t>(bytes.size()),
                       direction == message_direction::sent};
        std::memcpy(c.data.get() + c.used, &h, sizeof h);
        std::memcpy(c.data.get() + c.used + sizeof h, bytes.data(), bytes.size());
        c.used += need;
        kept_bytes_ += bytes.size();
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
    // Each message is a header and its bytes, appended to 1 MiB chunks that never move:
    // no allocation per message, and no copying as the recording grows.
    struct header {
        clock::rep at;
        std::uint32_t size;
        bool sent;
    };
    struct chunk {
        std::unique_ptr<char[]> data;
        std::size_t used = 0;
    };
    static constexpr std::size_t chunk_size = std::size_t{1} << 20;

    void new_chunk(std::size_t need) {
        chunk_capacity_ = std::max(chunk_size, need);
        chunks_.push_back(chunk{std::unique_ptr<char[]>(new char[chunk_capacity_]), 0});
    }

    std::size_t max_bytes_;
    clock::time_point started_;
    std::chrono::system_clock::time_point started_wall_ = std::chrono::system_clock::now();
    std::string transport_, server_;
    std::vector<chunk> chunks_;
    std::size_t chunk_capacity_ = 0;  // of the last chunk
    std::size_t kept_bytes_ = 0;      // message bytes kept (max_bytes_ bounds them)
    std::uint64_t dropped_ = 0;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/session/impl/traffic_recorder.ipp>
#endif
