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
    for (const chunk& c : chunks_) {
        std::size_t at = 0;
        while (at < c.used) {
            header h;
            std::memcpy(&h, c.data.get() + at, sizeof h);
            recorded_message m;
            m.direction = h.sent ? message_direction::sent : message_direction::received;
            m.at = std::chrono::duration_cast<std::chrono::nanoseconds>(clock::duration(h.at));
            m.raw.assign(c.data.get() + at + sizeof h, h.size);
            s.messages.push_back(std::move(m));
            at += sizeof h + h.size;
        }
    }
    return s;
}

}  // namespace mcp_loadtest::detail
