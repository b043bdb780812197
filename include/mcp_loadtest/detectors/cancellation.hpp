// The cancellation check (docs/detectors.md#cancellation): per cancel moment
// (right after the send, mid-call, just as the reply is due), one session of
// its own: uncancelled calls first (their median latency times the moments),
// then calls cancelled with session::cancel() at that moment, each followed by
// an uncancelled one, then a follow-up batch compared with the baseline. Each
// cancelled call is classified from session::late_replies(): honoured (no
// reply), replied anyway (the spec says a receiver SHOULD NOT reply), or a reply
// that crossed the cancel on the wire (allowed); a server that exits after a
// cancel is reported with its exit status and the end of its stderr.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/session/cancel_moment.hpp>
#include <mcp_loadtest/sessions.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace mcp_loadtest {

struct cancellation_options {
    std::size_t baseline_calls = 4;      ///< uncancelled calls before any cancel, per moment
    std::size_t cancels_per_moment = 4;  ///< each followed by one uncancelled call
    std::size_t followup_calls = 4;      ///< uncancelled calls after the cancels, compared with the baseline
    bool after_send = true;              ///< the moments tried, each on its own session
    bool mid_call = true;
    bool reply_due = true;
    /// Later calls are "slower" when their median exceeds both this many times
    /// the baseline median and the baseline median plus slower_margin.
    double slower_ratio = 3.0;
    std::chrono::milliseconds slower_margin{50};
    /// A reply within this of its cancel, at about its normal time, crossed the
    /// cancel on the wire (allowed by the spec's timing considerations).
    std::chrono::milliseconds crossing_allowance{20};
    call_options call{.timeout = std::chrono::seconds(10)};
};
// Written inline inside co_await: must stay trivially copyable (docs/index.md#compiler-notes).
static_assert(std::is_trivially_copyable_v<cancellation_options>);

enum class cancellation_verdict : std::uint8_t {
    pass,          ///< cancels honoured (or crossed), no crash, later calls as before
    warning,       ///< replies to cancelled calls, or later calls much slower
    critical,      ///< the server exited after a cancel, or later calls failed
    inconclusive,  ///< no cancel could be judged (the tool fails uncancelled, or every reply came first)
};

[[nodiscard]] constexpr std::string_view to_string(cancellation_verdict v) noexcept {
    switch (v) {
        case cancellation_verdict::pass: return "pass";
        case cancellation_verdict::warning: return "warning";
        case cancellation_verdict::critical: return "critical";
        case cancellation_verdict::inconclusive: return "inconclusive";
    }
    return "unknown";
}

/// What became of one call chosen for a cancel.
enum class cancel_fate : std::uint8_t {
    reply_first,     ///< the call ended before its cancel moment: nothing was sent
    honoured,        ///< no reply after the cancel
    replied_anyway,  ///< a reply the server sent after it was told to stop
    crossed,         ///< a reply already on its way when the cancel was sent
};

[[nodiscard]] constexpr std::string_view to_string(cancel_fate f) noexcept {
    switch (f) {
        case cancel_fate::reply_first: return "reply_first";
        case cancel_fate::honoured: return "honoured";
        case cancel_fate::replied_anyway: return "replied_anyway";
        case cancel_fate::crossed: return "crossed";
    }
    return "unknown";
}

struct cancelled_call {
    std::uint64_t request_id = 0;
    cancel_fate fate = cancel_fate::honoured;
    mcp_loadtest::outcome ended = outcome::cancelled;  ///< how the call ended for the client
    std::chrono::nanoseconds expected{0};      ///< median latency of uncancelled calls when it was sent
    std::chrono::nanoseconds aimed_at{0};      ///< the planned cancel, from the send
    std::chrono::nanoseconds cancel_after{0};  ///< the cancel as sent, from the send (reply_first: the call's duration)
    std::chrono::nanoseconds reply_after{0};   ///< a reply after the cancel, from the send (0: none)
};

/// One moment, tried on its own session.
struct cancel_moment_report {
    cancel_moment moment = cancel_moment::after_send;
    std::size_t attempted = 0, sent = 0, reply_first = 0, honoured = 0, replied_anyway = 0, crossed = 0;
    bool crashed = false;               ///< the server exited after a cancel
    std::size_t crashed_after_cancels = 0;  ///< cancels sent before it was seen to exit
    exit_status exit{};
    std::string stderr_tail;            ///< its last stderr (stdio servers; captured by the check)
    std::size_t later_calls = 0, later_failed = 0;  ///< uncancelled calls after the first cancel
    std::string failure;                ///< the first failed uncancelled call, described
    bool baseline_failed = false;       ///< an uncancelled call failed before any cancel
    std::chrono::nanoseconds baseline_median{0}, followup_median{0};
    bool slower = false;
    std::vector<cancelled_call> calls;
};

struct cancellation_report {
    cancellation_verdict verdict = cancellation_verdict::pass;
    std::string tool;
    std::vector<cancel_moment_report> moments;
    std::size_t sent = 0, honoured = 0, replied_anyway = 0, crossed = 0, reply_first = 0;
    std::size_t crashes = 0, later_failed = 0;
    std::string inconclusive_reason;
    std::chrono::nanoseconds took{0};

    [[nodiscard]] bool passed() const noexcept {
        return verdict == cancellation_verdict::pass || verdict == cancellation_verdict::inconclusive;
    }
    [[nodiscard]] MCP_LOADTEST_DECL const cancel_moment_report* moment(cancel_moment m) const noexcept;
    [[nodiscard]] MCP_LOADTEST_DECL std::string verdict_sentence() const;
};

// ---- JSON (durations as integer nanoseconds) --------------------------------

MCP_LOADTEST_DECL void to_json(json& j, const cancelled_call& c);
MCP_LOADTEST_DECL void from_json(const json& j, cancelled_call& c);

MCP_LOADTEST_DECL void to_json(json& j, const cancel_moment_report& m);
MCP_LOADTEST_DECL void from_json(const json& j, cancel_moment_report& m);

MCP_LOADTEST_DECL void to_json(json& j, const cancellation_report& r);
MCP_LOADTEST_DECL void from_json(const json& j, cancellation_report& r);

// The client options take an overload, not a default: a defaulted client_options{}
// would be a temporary inside the caller's co_await (docs/index.md#compiler-notes).
/// Calls `tool` and cancels calls right after the send, mid-call and just as
/// the reply is due (each moment on its own session), then judges what the
/// server did with each cancel and whether it still works afterwards.
MCP_LOADTEST_DECL asio::awaitable<cancellation_report> cancellation_check(any_server server, std::string tool,
                                                               const json& arguments, cancellation_options options,
                                                               client_options client);
MCP_LOADTEST_DECL asio::awaitable<cancellation_report> cancellation_check(any_server server, std::string tool,
                                                               const json& arguments,
                                                               cancellation_options options = {});

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detectors/impl/cancellation.ipp>
#endif
