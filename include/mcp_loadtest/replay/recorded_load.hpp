// Load shaped like real traffic (docs/replay.md#load-shaped-like-a-recording): run() driven by a
// recording's arrivals and request mix rather than a uniform mix.
//
//     auto shape = mlt::load_from_recording(recorded, {.speed = 4});   // 4x the recorded rate
//     auto report = co_await mlt::run(server, shape.load, shape.body);
//
// Each recorded session is one iteration: it starts at its recorded arrival (divided by the
// speed), then sends the session's requests in order, each after its recorded think time (the
// gap since the previous reply, divided by the speed), measured per tool as a mix's calls are.
// With a duration the recording loops, its arrivals shifted by its span each time.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/replay/recording.hpp>
#include <mcp_loadtest/run.hpp>
#include <mcp_loadtest/workload.hpp>

#include <chrono>
#include <cstddef>

namespace mcp_loadtest {

struct recorded_load_options {
    double speed = 1;  ///< N: arrivals and think times N times as fast as recorded
    /// 0: one pass over the recording; else the recording loops until this much time has passed.
    std::chrono::nanoseconds duration{0};
    bool think_times = true;  ///< false: a session's requests back to back
};

/// What run() takes: the workload (one user per recorded session, each waiting for its
/// iterations' arrivals) and the body that replays a session's requests.
struct recorded_load {
    workload load;
    iteration_body body{mix{}};
    std::size_t sessions = 0;       ///< recorded sessions with at least one request
    std::size_t requests = 0;       ///< requests in one pass
    double recorded_span_s = 0;     ///< from the first session's first request to the last reply
};

/// Throws std::invalid_argument when the recording holds no request to send, or speed <= 0.
[[nodiscard]] MCP_LOADTEST_DECL recorded_load load_from_recording(const recording& r, recorded_load_options options);
[[nodiscard]] MCP_LOADTEST_DECL recorded_load load_from_recording(const recording& r);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/replay/impl/recorded_load.ipp>
#endif
