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
    s.messages.reserve(entries_.size());
    for (const entry& e : entries_) {
        recorded_message m;
        m.direction = e.direction;
        m.at = std::chrono::duration_cast<std::chrono::nanoseconds>(e.at);
        m.raw.assign(bytes_, e.offset, e.size);
        s.messages.push_back(std::move(m));
    }
    return s;
}

}  // namespace mcp_loadtest::detail
