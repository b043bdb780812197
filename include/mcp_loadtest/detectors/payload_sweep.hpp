// The payload sweep (docs/detectors.md#payload-sweep): one string argument of a
// tool grown through a geometric ladder of sizes (1 KiB to 15 MiB by default),
// one call per size, each bounded by a timeout that grows with the size. The
// first size that hangs, fails or comes back malformed (or, for a tool that
// echoes, without the payload intact) is bracketed against the last good one,
// then the bracket is narrowed by bisection, bounded in steps and time. After a
// failure the session is abandoned (a wedged stdio server is killed) and a new
// one opened for the next size.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/session.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mcp_loadtest {

struct payload_sweep_options {
    std::size_t min_bytes = 1024;              ///< first rung of the ladder (after a 16-byte baseline)
    std::size_t max_bytes = 15 * 1024 * 1024;  ///< last rung
    double growth = 4.0;                       ///< each rung this many times the last: 1, 4, 16 ... KiB, then max_bytes
    /// Per call: a call with no reply within timeout + timeout_per_mib × its size in MiB is a hang.
    std::chrono::milliseconds timeout{3000};
    std::chrono::milliseconds timeout_per_mib{250};
    /// The tool echoes the argument: a reply without the payload intact is a failure.
    bool expect_echo = false;
    /// After the first failure, halve the bracket at most this many times (0: no bisection) ...
    std::size_t bisect_steps = 6;
    /// ... and start no new step after this long (each step is bounded by its timeout).
    std::chrono::milliseconds bisect_budget{15000};
};
// Written inline inside co_await: must stay trivially copyable (docs/index.md#compiler-notes).
static_assert(std::is_trivially_copyable_v<payload_sweep_options>);

enum class payload_verdict : std::uint8_t {
    pass,          ///< every size round-tripped
    limit_found,   ///< a size failed: see the bracket
    inconclusive,  ///< the tool failed even with a tiny value: not a size problem
};

[[nodiscard]] constexpr std::string_view to_string(payload_verdict v) noexcept {
    switch (v) {
        case payload_verdict::pass: return "pass";
        case payload_verdict::limit_found: return "limit_found";
        case payload_verdict::inconclusive: return "inconclusive";
    }
    return "unknown";
}

/// How a size failed.
enum class payload_failure : std::uint8_t {
    none,
    hang,           ///< no reply within the timeout (hang, deadlock, session deadline)
    crash,          ///< the server process exited
    disconnected,   ///< the connection or the server's output closed
    malformed,      ///< the reply was not valid JSON-RPC (or over the client's size limit)
    echo_mismatch,  ///< an answer, but without the payload intact
    rejected,       ///< an error reply (tool error, JSON-RPC error, HTTP 413...)
};

[[nodiscard]] constexpr std::string_view to_string(payload_failure f) noexcept {
    switch (f) {
        case payload_failure::none: return "none";
        case payload_failure::hang: return "hang";
        case payload_failure::crash: return "crash";
        case payload_failure::disconnected: return "disconnected";
        case payload_failure::malformed: return "malformed";
        case payload_failure::echo_mismatch: return "echo_mismatch";
        case payload_failure::rejected: return "rejected";
    }
    return "unknown";
}

/// One call of the sweep.
struct payload_probe {
    std::size_t bytes = 0;        ///< length of the swept string argument
    bool bisection = false;       ///< made while narrowing the bracket
    bool good = false;
    mcp_loadtest::outcome outcome = outcome::ok;
    payload_failure failure = payload_failure::none;
    std::chrono::nanoseconds duration{0};
    std::chrono::nanoseconds timeout{0};
    std::uint64_t bytes_sent = 0;      ///< on the wire for this call (HTTP: with headers)
    std::uint64_t bytes_received = 0;
    std::uint16_t http_status = 0;
    std::string message;          ///< the call's message, or what was wrong with the echo
};

struct payload_sweep_report {
    payload_verdict verdict = payload_verdict::pass;
    std::string tool;
    std::string argument;
    std::string transport;        ///< "stdio", "tcp", "streamable-http", ...
    bool expect_echo = false;
    std::size_t top_bytes = 0;        ///< the largest size asked for
    std::size_t last_good_bytes = 0;  ///< the largest size that round-tripped (0: none)
    std::size_t first_bad_bytes = 0;  ///< the smallest size that failed (0: none)
    payload_failure failure = payload_failure::none;  ///< how first_bad_bytes failed
    mcp_loadtest::outcome failure_outcome = outcome::ok;
    std::string failure_message;
    /// After a hang, the same session was pinged: false when that went unanswered too
    /// (the server is wedged for good, not just slow on one request).
    bool answered_after_failure = true;
    std::size_t restarts = 0;         ///< sessions opened again after a failure
    std::string restart_failure;      ///< why a new session could not be opened (bisection stopped)
    std::size_t bisection_steps = 0;
    std::vector<payload_probe> probes;
    std::chrono::nanoseconds took{0};

    /// False only when a size failed that a smaller one did not.
    [[nodiscard]] bool passed() const noexcept { return verdict != payload_verdict::limit_found; }
    [[nodiscard]] MCP_LOADTEST_DECL std::string verdict_sentence() const;
    /// The largest probe that round-tripped, or nullptr.
    [[nodiscard]] MCP_LOADTEST_DECL const payload_probe* largest_good() const noexcept;
};

// The client options take an overload, not a default: a defaulted client_options{}
// would be a temporary inside the caller's co_await (docs/index.md#compiler-notes).
/// Grows the string argument `argument` of `tool` (the other arguments from
/// `base_arguments`, a JSON object) through the size ladder; reports the first
/// size that hangs, fails or comes back malformed, bracketed and bisected.
/// Throws std::invalid_argument for bad options or a tool the server does not
/// list, connect_error when the first session cannot be opened.
MCP_LOADTEST_DECL asio::awaitable<payload_sweep_report> payload_sweep(any_server server, std::string tool, std::string argument,
                                                           const json& base_arguments, payload_sweep_options options,
                                                           client_options client);
MCP_LOADTEST_DECL asio::awaitable<payload_sweep_report> payload_sweep(any_server server, std::string tool, std::string argument,
                                                           const json& base_arguments, payload_sweep_options options);
MCP_LOADTEST_DECL asio::awaitable<payload_sweep_report> payload_sweep(any_server server, std::string tool, std::string argument,
                                                           payload_sweep_options options, client_options client);
MCP_LOADTEST_DECL asio::awaitable<payload_sweep_report> payload_sweep(any_server server, std::string tool, std::string argument,
                                                           payload_sweep_options options = {});

// ---- JSON (durations as integer nanoseconds) --------------------------------

MCP_LOADTEST_DECL void to_json(json& j, const payload_probe& p);
MCP_LOADTEST_DECL void from_json(const json& j, payload_probe& p);

MCP_LOADTEST_DECL void to_json(json& j, const payload_sweep_report& r);
MCP_LOADTEST_DECL void from_json(const json& j, payload_sweep_report& r);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detectors/impl/payload_sweep.ipp>
#endif
