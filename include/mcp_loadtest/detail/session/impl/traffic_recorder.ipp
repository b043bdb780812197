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
    clock::rep at_ns = 0;
    for (const chunk& c : chunks_) {
        const char* in = c.data.get();
        const char* const end = in + c.used;
        while (in < end) {
            at_ns += unzigzag(get_varint(in));
            const std::uint64_t size_and_way = get_varint(in);
            const auto size = static_cast<std::size_t>(size_and_way >> 1);
            const int way = (size_and_way & 1) ? 0 : 1;
            const auto prefix = static_cast<std::size_t>(get_varint(in));
            const auto suffix = static_cast<std::size_t>(get_varint(in));
            const std::size_t middle = size - prefix - suffix;
            recorded_message m;
            m.direction = way == 0 ? message_direction::sent : message_direction::received;
            m.at = std::chrono::duration_cast<std::chrono::nanoseconds>(clock::duration(at_ns));
            const std::string& base = previous[way];
            m.raw.reserve(size);
            m.raw.assign(base, 0, prefix);
            m.raw.append(in, middle);
            m.raw.append(base, base.size() - suffix, suffix);
            in += middle;
            if (size <= max_delta_base) previous[way] = m.raw;
            s.messages.push_back(std::move(m));
        }
    }
    return s;
}

}  // namespace mcp_loadtest::detail
