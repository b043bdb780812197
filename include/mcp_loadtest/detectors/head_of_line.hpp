// The head-of-line blocking check (docs/detectors.md#head-of-line-blocking):
// the fast call alone (repeat()), the slow call alone, then for each k of a
// sweep, k slow calls and a series of fast calls started a little later are
// released together (release_together()), on one session and across two. The
// fast call is blocked at k when its tail under load reaches a good part of the
// slow call's duration while it is fast alone; the first such k is where
// blocking starts (a server with a pool of N workers blocks from k = N).
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/combinators.hpp>
#include <mcp_loadtest/sessions.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mcp_loadtest {

/// One call of the check: a tool and its arguments.
struct head_of_line_call {
    std::string tool;
    json arguments = json::object();
};

/// The numbers of slow calls in flight to try, ascending, up to 8 of them.
/// Trivially copyable, so the options holding it are safe inline in co_await.
class in_flight_sweep {
public:
    static constexpr std::size_t capacity = 8;
    constexpr in_flight_sweep() noexcept = default;
    constexpr in_flight_sweep(std::initializer_list<std::size_t> ks) {
        if (ks.size() > capacity) throw std::length_error("mcp_loadtest::in_flight_sweep holds at most 8 values");
        for (std::size_t k : ks) items_[size_++] = k;
    }
    /// 1, 2, 4, ... up to `largest` (the default sweep is doubling(8): 1, 2, 4, 8).
    [[nodiscard]] static constexpr in_flight_sweep doubling(std::size_t largest) noexcept {
        in_flight_sweep s;
        for (std::size_t k = 1; k <= largest && s.size_ < capacity; k *= 2) s.items_[s.size_++] = k;
        return s;
    }
    [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
    [[nodiscard]] constexpr const std::size_t* begin() const noexcept { return items_.data(); }
    [[nodiscard]] constexpr const std::size_t* end() const noexcept { return items_.data() + size_; }

private:
    std::array<std::size_t, capacity> items_{};
    std::size_t size_ = 0;
};

struct head_of_line_options {
    std::size_t fast_samples = 30;    ///< the fast call alone, one at a time
    std::size_t slow_samples = 3;     ///< the slow call alone, one at a time: its median is the yardstick
    std::size_t fast_under_load = 10; ///< fast calls started while the k slow calls are in flight
    /// Not a braced list here: GCC 12 rejects one in a default member initializer used inside co_await.
    in_flight_sweep sweep = in_flight_sweep::doubling(8);
    bool one_session = true;          ///< slow and fast calls on the same session
    bool across_sessions = true;      ///< the slow calls on a second session
    /// Blocked at k: the fast call's p90 under load ≥ this × the slow call's median alone.
    double blocked_fraction = 0.5;
    /// Judgeable only when the fast call's p90 alone ≤ this × the slow call's median alone.
    double fast_fraction = 0.1;
    /// Stop a sweep at the first blocked k (a larger k blocks too); false measures every k.
    bool stop_at_first_block = true;
    call_options call{.timeout = std::chrono::seconds(10)};
};
// Written inline inside co_await: must stay trivially copyable (docs/index.md#compiler-notes).
static_assert(std::is_trivially_copyable_v<head_of_line_options>);

enum class head_of_line_verdict : std::uint8_t {
    not_blocked,    ///< the fast call stayed fast at every k
    blocked,        ///< it waited behind the slow calls (the bug)
    indeterminate,  ///< cannot be told (the fast call is not fast alone, or a call failed alone); passes
};

[[nodiscard]] constexpr std::string_view to_string(head_of_line_verdict v) noexcept {
    switch (v) {
        case head_of_line_verdict::not_blocked: return "not_blocked";
        case head_of_line_verdict::blocked: return "blocked";
        case head_of_line_verdict::indeterminate: return "indeterminate";
    }
    return "unknown";
}

/// A few dozen call durations and their order statistics (nearest rank).
struct latency_samples {
    std::vector<std::chrono::nanoseconds> samples;  ///< in the order measured
    std::size_t failed = 0;  ///< calls that did not end ok or tool_error (their durations are included)
    std::chrono::nanoseconds min{0}, p50{0}, p90{0}, max{0};

    MCP_LOADTEST_DECL void add(const call_result& c);
};

/// One k of a sweep.
struct head_of_line_step {
    std::size_t k = 0;     ///< slow calls in flight
    latency_samples fast;  ///< the fast call while they were
    latency_samples slow;  ///< those slow calls
    bool blocked = false;
};

/// One mode: "one session" (the slow calls on the fast call's session) or
/// "across sessions" (on a second session).
struct head_of_line_sweep {
    std::string mode;
    std::vector<head_of_line_step> steps;
    std::size_t blocking_starts_at_k = 0;  ///< 0: not blocked at any k tried
};

struct head_of_line_report {
    head_of_line_verdict verdict = head_of_line_verdict::not_blocked;
    std::string fast_tool, slow_tool;
    latency_samples fast_alone, slow_alone;
    std::string tail = "p90";  ///< the fast call's statistic judged
    double blocked_fraction = 0.5, fast_fraction = 0.1;
    std::chrono::nanoseconds blocked_at{0};  ///< blocked_fraction × the slow call's median alone
    std::chrono::nanoseconds fast_limit{0};  ///< fast_fraction × the slow call's median alone
    std::vector<head_of_line_sweep> sweeps;
    std::size_t blocking_starts_at_k = 0;  ///< the smallest over the sweeps; 0: never blocked
    std::string reason;                    ///< why indeterminate
    std::chrono::nanoseconds took{0};

    [[nodiscard]] bool passed() const noexcept { return verdict != head_of_line_verdict::blocked; }

    [[nodiscard]] MCP_LOADTEST_DECL std::string verdict_sentence() const;
};

// ---- JSON (durations as integer nanoseconds) ------------------------------------

MCP_LOADTEST_DECL void to_json(json& j, const latency_samples& s);
MCP_LOADTEST_DECL void from_json(const json& j, latency_samples& s);
MCP_LOADTEST_DECL void to_json(json& j, const head_of_line_step& s);
MCP_LOADTEST_DECL void from_json(const json& j, head_of_line_step& s);
MCP_LOADTEST_DECL void to_json(json& j, const head_of_line_sweep& s);
MCP_LOADTEST_DECL void from_json(const json& j, head_of_line_sweep& s);
MCP_LOADTEST_DECL void to_json(json& j, const head_of_line_report& r);
MCP_LOADTEST_DECL void from_json(const json& j, head_of_line_report& r);

// ---- the check ------------------------------------------------------------------

// The client options take an overload, not a default: a defaulted client_options{}
// would be a temporary inside the caller's co_await (docs/index.md#compiler-notes).
/// The fast call alone, then while k slow calls are in flight for each k of
/// options.sweep, on one session and across two: blocked when its p90 under
/// load reaches blocked_fraction of the slow call's median.
MCP_LOADTEST_DECL asio::awaitable<head_of_line_report> head_of_line_check(any_server server, head_of_line_call fast_call,
                                                               head_of_line_call slow_call,
                                                               head_of_line_options options, client_options client);
MCP_LOADTEST_DECL asio::awaitable<head_of_line_report> head_of_line_check(any_server server, head_of_line_call fast_call,
                                                               head_of_line_call slow_call,
                                                               head_of_line_options options = {});

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detectors/impl/head_of_line.ipp>
#endif
