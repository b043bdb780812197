// replay(recording, server, options): the recorded sessions played back against a server, every
// reply compared with the recorded one (docs/replay.md).
//
// Each recorded session is re-opened (its handshake redone, not copied), its requests sent in the
// recorded order with the recorded concurrency: a request that followed a reply in the recording
// waits for that reply here too, and what was in flight together is sent together. Pace: as fast
// as that allows, at the recorded times, or scaled. Server-to-client requests are answered with
// the recording's answers, and recorded cancellations are sent when the request is still running.
#pragma once

#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/client_options.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/replay/json_diff.hpp>
#include <mcp_loadtest/replay/recording.hpp>
#include <mcp_loadtest/replay/replay_report.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>

namespace mcp_loadtest {

class session;

enum class replay_pace {
    fastest,   ///< each request as soon as the requests it followed are answered
    recorded,  ///< at its recorded time from the session's start (and not before those answers)
    scaled,    ///< at its recorded time divided by replay_options::speed
};

struct replay_options {
    replay_pace pace = replay_pace::fastest;
    double speed = 1;  ///< scaled: 2 replays twice as fast as recorded, 0.5 at half speed
    /// What counts as the same reply: ignored paths (timestamps, generated ids), arrays that are
    /// sets, per tool. Pointers start at the reply's member: /result/... or /error/...
    diff_rules rules{};
    /// The replaying sessions' options. Its protocol_version, when empty, is the recorded one.
    client_options client{};
    /// Per request: no reply within this long ends it as `hang`.
    std::chrono::milliseconds timeout = std::chrono::seconds(30);
    /// Sessions replayed at their recorded distance from each other (recorded and scaled pace);
    /// false, or fastest pace: all at once.
    bool keep_session_offsets = true;
    std::size_t max_findings = 1000;  ///< the rest are counted (replay_report::findings_not_shown)
    /// How replay_report::latency_changes judges recorded against replayed latency.
    comparison_rules latency_rules{};
};

/// Replays `r` against `server`. Never throws for what the server does: a session that cannot be
/// opened is in replay_report::errors, a request that fails is a finding.
MCP_LOADTEST_DECL asio::awaitable<replay_report> replay(recording r, any_server server, replay_options options);
MCP_LOADTEST_DECL asio::awaitable<replay_report> replay(recording r, any_server server);

/// The traffic of a golden recording: what the test does on a session (calls, reads, ...).
using golden_traffic = std::function<asio::awaitable<void>(session&)>;

/// Golden traffic tests (docs/replay.md#golden-traffic-tests): replays the recording at `path`
/// (relative: to $MCP_LOADTEST_BASELINE_DIR, else the working directory, as baselines) against
/// `server`. With MCP_LOADTEST_UPDATE_BASELINES=1, `traffic` is first run on a recording session
/// against `server` and written to `path` (replay_report::golden_written says so); without it, a
/// missing file fails the check with the command that records it.
MCP_LOADTEST_DECL asio::awaitable<replay_report> replay_golden(std::filesystem::path path, any_server server,
                                                               golden_traffic traffic, replay_options options);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/replay/impl/replay.ipp>
#endif
