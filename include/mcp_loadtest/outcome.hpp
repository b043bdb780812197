// The error taxonomy: every request ends in exactly one outcome.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace mcp_loadtest {

/// How one request ended. Precedence when several apply is top-down in the
/// taxonomy (a call that hangs and then sees the server die is a `crash`).
enum class outcome : std::uint8_t {
    ok,              ///< a result arrived in time
    tool_error,      ///< a tools/call result arrived with `isError: true`
    hang,            ///< no reply within the call's timeout (or it came during the grace period)
    deadlock,        ///< no reply within timeout + grace period
    timeout,         ///< the session-wide deadline expired first
    server_error,    ///< JSON-RPC error reply with an application or server-defined code
    protocol_error,  ///< JSON-RPC error reply -32700 or -32600..-32603
    crash,           ///< the server process exited while the call was in flight
    malformed,       ///< the reply was not valid JSON-RPC (truncated, oversized, wrong shape)
    disconnected,    ///< the transport closed while the process kept running
    cancelled,       ///< the client cancelled the call (explicitly, or the session closed)
    /// HTTP 401 or 403 that OAuth could not answer (no client, a failed flow, refused again)
    unauthorized,
    /// HTTP 429 Too Many Requests: counted apart from errors (outcome_counts::errors())
    throttled,
};

inline constexpr std::array<outcome, 13> all_outcomes{
    outcome::ok,           outcome::tool_error,     outcome::hang,  outcome::deadlock,
    outcome::timeout,      outcome::server_error,   outcome::protocol_error,
    outcome::crash,        outcome::malformed,      outcome::disconnected,
    outcome::cancelled,    outcome::unauthorized,   outcome::throttled};

[[nodiscard]] constexpr std::string_view to_string(outcome o) noexcept {
    switch (o) {
        case outcome::ok: return "ok";
        case outcome::tool_error: return "tool_error";
        case outcome::hang: return "hang";
        case outcome::deadlock: return "deadlock";
        case outcome::timeout: return "timeout";
        case outcome::server_error: return "server_error";
        case outcome::protocol_error: return "protocol_error";
        case outcome::crash: return "crash";
        case outcome::malformed: return "malformed";
        case outcome::disconnected: return "disconnected";
        case outcome::cancelled: return "cancelled";
        case outcome::unauthorized: return "unauthorized";
        case outcome::throttled: return "throttled";
    }
    return "unknown";
}

/// The outcome named `name` (as to_string gives it); `cancelled` if unknown.
[[nodiscard]] constexpr outcome outcome_from_name(std::string_view name) noexcept {
    for (auto o : all_outcomes)
        if (to_string(o) == name) return o;
    return outcome::cancelled;
}

/// One sentence on what an outcome usually means for the server under test.
[[nodiscard]] constexpr std::string_view meaning(outcome o) noexcept {
    switch (o) {
        case outcome::ok: return "the server answered in time";
        case outcome::tool_error:
            return "the tool ran and reported a failure in its result (isError: true)";
        case outcome::hang:
            return "the server did not answer within the timeout; it is slow or stuck";
        case outcome::deadlock:
            return "the server never answered, even after the grace period; it is probably "
                   "deadlocked (lazy initialisation, a lock, or a blocked event loop)";
        case outcome::timeout: return "the whole-session deadline expired before the reply";
        case outcome::server_error: return "the server answered with a JSON-RPC error";
        case outcome::protocol_error:
            return "the server rejected the request as invalid JSON-RPC or an invalid method call";
        case outcome::crash: return "the server process exited while the request was in flight";
        case outcome::malformed:
            return "the server's reply was not valid JSON-RPC (truncated, oversized or wrongly "
                   "shaped)";
        case outcome::disconnected:
            return "the server closed its output while still running";
        case outcome::cancelled: return "the client cancelled the request";
        case outcome::unauthorized:
            return "the server refused the request's credentials (HTTP 401 or 403) and getting new ones did not help";
        case outcome::throttled:
            return "the server asked the client to slow down (HTTP 429 Too Many Requests)";
    }
    return "";
}

/// Maps a JSON-RPC error code to the taxonomy. -32020..-32022 are the
/// protocol's own errors of the 2026-07-28 era (header mismatch, missing
/// client capability, unsupported protocol version).
[[nodiscard]] constexpr outcome classify_error_code(std::int64_t code) noexcept {
    if (code == -32700 || (code >= -32603 && code <= -32600)) return outcome::protocol_error;
    if (code >= -32022 && code <= -32020) return outcome::protocol_error;
    return outcome::server_error;
}

}  // namespace mcp_loadtest
