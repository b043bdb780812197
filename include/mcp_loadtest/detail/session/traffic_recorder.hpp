// A session's live capture (client_options::record): every message in both directions,
// byte-exact, appended to one growing buffer with a small index entry each, so recording
// costs a copy and no allocation per message (bench_run_overhead measures it). Bounded:
// past max_bytes, messages are counted as dropped, not kept.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/clock.hpp>
#include <mcp_loadtest/replay/recording.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

class traffic_recorder {
public:
    traffic_recorder(std::size_t max_bytes, clock::time_point started) : max_bytes_(max_bytes), started_(started) {}

    void add(message_direction direction, std::string_view bytes) {
        // Lines are sent with their terminator; the recording keeps the message alone.
        if (direction == message_direction::sent) {
            while (!bytes.empty() && (bytes.back() == '\n' || bytes.back() == '\r')) bytes.remove_suffix(1);
        }
        if (bytes.size() > max_bytes_ - bytes_.size()) {
            ++dropped_;
            return;
        }
        entries_.push_back(entry{bytes_.size(), bytes.size(), clock::now() - started_, direction});
        bytes_.append(bytes);
    }

    /// A message too large to keep whole (transport_events::on_oversized): counted only.
    void count_dropped() noexcept { ++dropped_; }

    /// Labels the recording: what was spoken to, and when (wall clock) it began.
    void label(std::string transport, std::string server) {
        transport_ = std::move(transport);
        server_ = std::move(server);
    }

    /// The messages so far, as the public recording type.
    [[nodiscard]] MCP_LOADTEST_DECL recorded_session snapshot(std::string_view protocol_version,
                                                              std::string_view era) const;

    [[nodiscard]] std::size_t bytes() const noexcept { return bytes_.size(); }

private:
    struct entry {
        std::size_t offset;
        std::size_t size;
        clock::duration at;
        message_direction direction;
    };
    std::size_t max_bytes_;
    clock::time_point started_;
    std::chrono::system_clock::time_point started_wall_ = std::chrono::system_clock::now();
    std::string transport_, server_;
    std::string bytes_;
    std::vector<entry> entries_;
    std::uint64_t dropped_ = 0;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/session/impl/traffic_recorder.ipp>
#endif
