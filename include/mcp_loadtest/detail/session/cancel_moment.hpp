// When a call is cancelled, and how a reply to a cancelled call is judged:
// shared by the cancellation detector (detectors/cancellation.hpp) and run()'s
// cancellation injection (run_options::cancel), so run_options.hpp needs no
// detector. The names are public (docs/detectors.md#cancellation).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace mcp_loadtest {

/// The moment, counted from the request's send, at which a call is cancelled.
enum class cancel_moment : std::uint8_t {
    after_send,  ///< at once: the cancel follows the request on the wire
    mid_call,    ///< at half the median latency of uncancelled calls
    reply_due,   ///< at 90-100 % of that median: between the handler returning and its reply being sent
};

[[nodiscard]] constexpr std::string_view to_string(cancel_moment m) noexcept {
    switch (m) {
        case cancel_moment::after_send: return "after_send";
        case cancel_moment::mid_call: return "mid_call";
        case cancel_moment::reply_due: return "reply_due";
    }
    return "unknown";
}

/// The moment named `name` (as to_string gives it), or nullopt.
[[nodiscard]] constexpr std::optional<cancel_moment> cancel_moment_from_string(std::string_view name) noexcept {
    for (auto m : {cancel_moment::after_send, cancel_moment::mid_call, cancel_moment::reply_due})
        if (to_string(m) == name) return m;
    return std::nullopt;
}

/// run()'s cancellation injection (run_options::cancel): the first request of
/// a `fraction` of iterations is cancelled at `moment`. Injected cancels are
/// counted in load_report::cancellation, not as call outcomes or latencies.
struct cancel_injection {
    double fraction = 0;  ///< 0..1 of iterations (evenly spread); 0: off
    cancel_moment moment = cancel_moment::mid_call;
    /// A reply that arrives within this of its cancel, at about the time it
    /// was due anyway, crossed the cancel on the wire (allowed: the spec's
    /// timing considerations); later or earlier ones are "replied anyway".
    std::chrono::milliseconds crossing_allowance{20};
    /// A threshold violation when more cancelled calls were answered anyway
    /// (unset: counted only). A server that exits after a cancel is always one.
    std::optional<std::uint64_t> max_replied_anyway{};
};
// Written inline inside co_await: must stay trivially copyable (docs/index.md#compiler-notes).
static_assert(std::is_trivially_copyable_v<cancel_injection>);

namespace detail {

/// The delay from the send at which the k-th of n cancels at `m` is sent,
/// given the median latency of uncancelled calls; reply_due spreads its
/// cancels evenly over 90 to 100 % of it, earliest first.
[[nodiscard]] MCP_LOADTEST_DECL std::chrono::nanoseconds cancel_delay(cancel_moment m, std::chrono::nanoseconds median,
                                                           std::size_t k, std::size_t n) noexcept;

/// A reply to a cancelled call crossed the cancel (it was on its way before
/// the server could have read the cancel) when it came within `allowance` of
/// the cancel and not much earlier than an uncancelled reply would have come.
/// Any other reply is one the server sent after it was told to stop.
[[nodiscard]] MCP_LOADTEST_DECL bool reply_crossed_cancel(std::chrono::nanoseconds cancel_after,
                                               std::chrono::nanoseconds reply_after,
                                               std::chrono::nanoseconds expected,
                                               std::chrono::nanoseconds allowance) noexcept;

/// The last non-empty line of a server's stderr tail: its last words.
[[nodiscard]] MCP_LOADTEST_DECL std::string last_line_of(std::string_view text);

}  // namespace detail
}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/session/impl/cancel_moment.ipp>
#endif
