// What replay() found (docs/replay.md): every reply of the replayed server compared with the
// recorded one, the changes as findings, the latency per tool before and after, and how closely
// the recorded pace was kept. A plain struct with JSON and Markdown; no Asio.
#pragma once

#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/replay/json_diff.hpp>
#include <mcp_loadtest/report/compare.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

enum class replay_finding_kind {
    reply_changed,    ///< same outcome, another reply (the differences are in `diff`)
    outcome_changed,  ///< e.g. ok -> tool_error, ok -> hang, error -32602 -> error -32603
    new_error,        ///< recorded ok or tool_error, now a JSON-RPC error
    vanished_error,   ///< recorded a JSON-RPC error, now answered
};

/// "reply_changed", "outcome_changed", "new_error", "vanished_error".
MCP_LOADTEST_DECL std::string_view to_string(replay_finding_kind kind) noexcept;

/// One request whose replayed answer is not the recorded one.
struct replay_finding {
    replay_finding_kind kind = replay_finding_kind::reply_changed;
    std::uint32_t session = 1;   ///< the recorded session
    std::size_t request = 0;     ///< its position among the session's replayed requests, from 1
    std::string method{};
    std::string tool{};          ///< tools/call and prompts/get: the name; resources/read: the uri
    std::string request_text{};  ///< the recorded request (cut at 1000 characters)
    /// Outcomes: "ok", "tool_error", "error <code>", "no reply" (recorded without one), or the
    /// call's failure outcome in the replay ("hang", "crash", "timeout", ...).
    std::string before{}, after{};
    json_diff diff{};            ///< reply_changed (and error message changes): the differences

    /// One paragraph: which request, what changed, each difference on its own line.
    [[nodiscard]] MCP_LOADTEST_DECL std::string describe() const;
};

/// One tool's (or method's) latency, recorded against replayed, over the same requests.
struct replay_latency {
    std::string tool{};        ///< tool name, or the method for other requests
    std::size_t requests = 0;  ///< answered in both
    double before_p50_ms = 0, after_p50_ms = 0;
    double before_p95_ms = 0, after_p95_ms = 0;
};

/// How closely requests left at their recorded times (recorded and scaled pace).
struct replay_timing {
    std::string pace{};               ///< "fastest", "recorded" or "scaled"
    double speed = 1;                 ///< scaled: the factor (2: twice as fast)
    std::size_t paced_requests = 0;   ///< requests sent at a time of their own (not held by a reply)
    std::size_t held_requests = 0;    ///< waited past their time for a reply they followed in the recording
    double mean_error_ms = 0, p50_error_ms = 0, p99_error_ms = 0, max_error_ms = 0;  ///< |sent - due|
};

struct replay_report {
    std::string server{};           ///< replayed against (describe())
    std::string recorded_server{};  ///< the first recorded session's server
    std::size_t sessions = 0;       ///< recorded sessions replayed
    std::size_t requests = 0;       ///< requests sent
    std::size_t notifications = 0;  ///< client notifications sent (cancellations included)
    std::size_t compared = 0;       ///< requests with a recorded reply to compare with
    std::size_t identical = 0;      ///< of those, equal under the rules
    std::size_t server_requests_answered = 0;    ///< from the recording's answers
    std::size_t server_requests_unanswered = 0;  ///< the recording had no answer left for them
    /// Requests that asked for progress in the recording, and so in the replay (with the
    /// replaying session's own token), and the notifications/progress they received.
    std::size_t progress_requests = 0, progress_notifications = 0;
    std::vector<replay_finding> findings{};
    std::size_t findings_not_shown = 0;          ///< past replay_options::max_findings, counted only
    std::vector<replay_latency> latency{};
    /// The same latencies through compare()'s statistics (docs/reports.md#comparing-reports):
    /// overall and per tool, p50..p99.9 with a bootstrap interval and a verdict each. Blocks of
    /// consecutive requests stand for compare()'s intervals (20 when there are 200 requests or
    /// more), so a short recording gives `inconclusive`, never a guess. Not part of passed().
    std::vector<metric_comparison> latency_changes{};
    replay_timing timing{};
    std::vector<std::string> errors{};  ///< sessions that could not be opened, and why
    double duration_s = 0;
    /// replay_golden(): the golden recording was (re)written by this run.
    bool golden_written = false;
    std::string golden_path{};

    /// No finding, and every session opened.
    [[nodiscard]] MCP_LOADTEST_DECL bool passed() const noexcept;
    /// One sentence (MCP_CHECK_REPLAY_MATCHES' failure message starts with it), then each finding.
    [[nodiscard]] MCP_LOADTEST_DECL std::string verdict_sentence() const;
    [[nodiscard]] MCP_LOADTEST_DECL std::size_t count(replay_finding_kind kind) const noexcept;
};

MCP_LOADTEST_DECL void to_json(json& j, const replay_report& r);
/// A Markdown page: the verdict, the counts, each finding with its differences, the latency table.
[[nodiscard]] MCP_LOADTEST_DECL std::string to_markdown(const replay_report& r);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/replay/impl/replay_report.ipp>
#endif
