// Definitions of detail/session/traffic_recorder.hpp.
#pragma once

#include <mcp_loadtest/detail/session/traffic_recorder.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL recorded_session traffic_recorder::snapshot(std::string_view protocol_version,
                                                              std::string_view era) const {
    recorded_session s;
    s.transport = transport_;
    s.server = server_;
    s.protocol_version.assign(protocol_version);
    s.era.assign(era);
    s.started = started_wall_;
    s.dropped_messages = dropped_;
    std::string previous[2];
    for (const chunk& c : chunks_) {
        std::size_t at = 0;
        while (at < c.used) {
            const char* in = c.data.get() + at;
            const auto size = get<std::uint32_t>(in + 8);
            const auto prefix = get<std::uint32_t>(in + 12);
            const auto suffix = get<std::uint32_t>(in + 16);
            const int way = in[20] ? 0 : 1;
            const std::size_t middle = size - prefix - suffix;
            recorded_message m;
            m.direction = way == 0 ? message_direction::sent : message_direction::received;
            m.at = std::chrono::duration_cast<std::chrono::nanoseconds>(clock::duration(get<clock::rep>(in)));
            const std::string& base = previous[way];
            m.raw.reserve(size);
            m.raw.assign(base, 0, prefix);
            m.raw.append(in + header_size, middle);
            m.raw.append(base, base.size() - suffix, suffix);
            if (size <= max_delta_base) previous[way] = m.raw;
            s.messages.push_back(std::move(m));
            at += header_size + middle;
        }
    }
    return s;
}

}  // namespace mcp_loadtest::detail
