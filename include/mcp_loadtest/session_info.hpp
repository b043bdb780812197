// Plain structs a session reports about itself and its server.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/detail/os/child_process.hpp>
#include <mcp_loadtest/json.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

/// Something the server did that the protocol does not allow. The session
/// records it and carries on.
struct protocol_violation {
    enum class kind : std::uint8_t {
        non_json_line,     ///< e.g. a log line printed on stdout
        oversized_message, ///< a line longer than max_message_size (discarded)
        not_jsonrpc,       ///< valid JSON, but not a JSON-RPC message
        /// A well-formed response ("jsonrpc":"2.0", an id, one of result and
        /// error) to an id that was never sent, whatever the id's type.
        unknown_response,
        batch,             ///< a JSON array (batches are not part of MCP since 2025-06-18)
        stdin_closed,      ///< the server stopped reading its stdin while running
        /// A message with "id", "result", "error", "method", "params",
        /// "jsonrpc" or result.isError twice: parsers disagree on which one
        /// counts, so it is not acted on (a call it names ends as malformed).
        duplicate_member,
        /// A second response to a request already answered (same id).
        duplicate_reply,
        /// A response to a message that was a notification (or itself a response).
        reply_to_notification,
        /// notifications/progress whose token no request in flight was given (or a request's
        /// token sent back as another JSON type, e.g. "7" for 7). MCP: "Progress notifications
        /// MUST only reference tokens that were provided in an active request".
        progress_wrong_token,
        /// notifications/progress for a request already answered: "associated with an
        /// in-progress operation" no longer holds.
        progress_after_result,
        /// notifications/progress whose value is not above the request's previous one:
        /// "The progress value MUST increase with each notification".
        progress_not_increasing,
    };
    kind what = kind::non_json_line;
    std::string sample;      ///< the offending text (first 512 bytes)
    std::size_t size = 0;    ///< its full size in bytes
    std::chrono::steady_clock::duration at{};  ///< since the session started
    /// The request it concerns (progress rules); 0 when none could be named.
    std::uint64_t request_id = 0;

    [[nodiscard]] MCP_LOADTEST_DECL static std::string_view name(kind k) noexcept;
    [[nodiscard]] MCP_LOADTEST_DECL std::string describe() const;
};

/// A reply that arrived after its call had already ended as hang/deadlock/timeout.
struct late_reply {
    std::uint64_t request_id = 0;
    std::string method;
    std::string tool;
    std::chrono::nanoseconds after{0};  ///< from send to the late reply
};

/// A request still waiting for its reply.
struct in_flight_call {
    std::uint64_t request_id = 0;
    std::string method;
    std::string tool;
    std::chrono::nanoseconds waiting{0};
};

/// Counters over the session's life.
struct session_stats {
    std::uint64_t requests_sent = 0;
    std::uint64_t replies_received = 0;
    std::uint64_t notifications_sent = 0;
    std::uint64_t notifications_received = 0;
    std::uint64_t server_requests_answered = 0;
    std::uint64_t protocol_violations = 0;  ///< all of them; only the first 100 are kept
    std::uint64_t late_replies = 0;
    std::uint64_t schema_violations = 0;  ///< strict mode: all of them; only the first 1000 are kept
    /// Progress rules broken (each also counted in protocol_violations).
    std::uint64_t progress_wrong_token = 0;
    std::uint64_t progress_after_result = 0;
    std::uint64_t progress_not_increasing = 0;
    std::uint64_t bytes_written = 0;
    std::uint64_t bytes_read = 0;
    std::uint64_t http_redirects = 0;  ///< HTTP redirects followed (requests and streams)
    /// OAuth: requests held back for a token after a refusal, and the time they waited (kept
    /// out of their calls' latency: call_result::waited_for_token).
    std::uint64_t token_waits = 0;
    std::chrono::nanoseconds time_waiting_for_token{0};
    /// OAuth: the time this session had a request held for a token (overlapping waits once).
    std::chrono::nanoseconds time_blocked_on_token{0};
};

/// The two generations of MCP: legacy (2024-11-05 .. 2025-11-25, an
/// initialize handshake opens a session) and modern (2026-07-28 on: stateless,
/// every request carries its protocol version and capabilities in _meta).
enum class protocol_era : std::uint8_t { legacy, modern };

[[nodiscard]] MCP_LOADTEST_DECL std::string_view to_string(protocol_era e) noexcept;

/// What the server said about itself (initialize result, or server/discover).
struct server_identity {
    protocol_era era = protocol_era::legacy;
    std::string protocol_version;
    std::string name;
    std::string version;
    std::string instructions;
    json capabilities = json::object();
    json raw_result = json::object();
};

/// How close() ended the server.
struct shutdown_result {
    enum class how : std::uint8_t {
        already_exited,  ///< it had exited before close()
        stdin_closed,    ///< it exited when its stdin was closed (well-behaved)
        terminated,      ///< it needed SIGTERM
        killed,          ///< it ignored SIGTERM and needed SIGKILL
        abandoned,       ///< it survived SIGKILL within the bound (reported by process_audit)
        disconnected,    ///< a network session: the client closed its connections (the server is not ours)
    };
    how ended = how::already_exited;
    exit_status status;
    std::chrono::nanoseconds took{0};

    [[nodiscard]] MCP_LOADTEST_DECL static std::string_view name(how h) noexcept;
    /// True when the server exited on its own once stdin closed, as MCP asks.
    [[nodiscard]] bool graceful() const noexcept { return ended == how::stdin_closed; }
};

/// Thrown by connect()/initialize() when the handshake fails. `result` is the
/// classified initialize call; what() says what happened and what to do.
class connect_error : public std::runtime_error {
public:
    connect_error(const std::string& what, call_result r) : std::runtime_error(what), result(std::move(r)) {}
    call_result result;
};

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/session_info.ipp>
#endif
