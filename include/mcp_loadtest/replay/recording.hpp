// A recording: every message of one or more sessions, in both directions, byte-exact, with
// its time. Sessions and run() make one (client_options::record, run_options::record); replay()
// plays one back against another server (docs/replay.md). The file format is JSON Lines, one
// message per line, versioned and described by docs/schema/recording.schema.json.
//
// No Asio: tests and tools can read, build and write recordings without a session.
#pragma once

#include <mcp_loadtest/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

/// The recording format's version: the first line's "mcp_loadtest_recording" member.
inline constexpr int recording_format_version = 1;

enum class message_direction {
    sent,      ///< client to server (requests, notifications, our answers to server requests)
    received,  ///< server to client
};

/// "sent" or "received".
MCP_LOADTEST_DECL std::string_view to_string(message_direction direction) noexcept;

/// What a message is, read from its members (JSON-RPC 2.0).
enum class message_kind {
    request,       ///< "method" and "id"
    notification,  ///< "method", no "id"
    reply,         ///< "result" and "id"
    error_reply,   ///< "error"
    other,         ///< a batch, or not a JSON-RPC message (malformed output is recorded as it came)
};

/// One message exactly as it crossed the transport (no line terminator; an HTTP body or a
/// WebSocket frame whole), and when: the time since its session started.
struct recorded_message {
    message_direction direction = message_direction::sent;
    std::chrono::nanoseconds at{0};
    std::string raw;

    /// Parsed from `raw` on each call: an object or array, or nullopt when `raw` is not JSON.
    [[nodiscard]] MCP_LOADTEST_DECL std::optional<json> parsed() const;
    [[nodiscard]] MCP_LOADTEST_DECL message_kind kind() const;
    /// The "method" member, or "" (replies, non-JSON).
    [[nodiscard]] MCP_LOADTEST_DECL std::string method() const;
    /// The "id" member; nullopt for notifications and non-JSON.
    [[nodiscard]] MCP_LOADTEST_DECL std::optional<json> id() const;
    /// A tools/call's params.name (a prompts/get's name, a resources/read's uri), or "".
    [[nodiscard]] MCP_LOADTEST_DECL std::string tool() const;
};

/// One session's traffic.
struct recorded_session {
    std::uint32_t index = 1;           ///< 1, 2, ... within its recording
    std::string transport{};           ///< "stdio", "streamable-http", ... (transport_name())
    std::string server{};              ///< the command line, or the URL without credentials
    std::string protocol_version{};    ///< negotiated; "" when the session never opened
    std::string era{};                 ///< "legacy", "modern" or ""
    /// When the session started (wall clock), for the human reader and for replaying sessions
    /// at their recorded distance from each other.
    std::chrono::system_clock::time_point started{};
    std::vector<recorded_message> messages{};
    /// Messages not kept once the recording reached its size bound (counted, not stored).
    std::uint64_t dropped_messages = 0;
};

/// Sessions and their messages, in the order they started.
struct recording {
    std::vector<recorded_session> sessions{};

    [[nodiscard]] MCP_LOADTEST_DECL std::size_t message_count() const noexcept;
    /// The bytes of every kept message (the size bound counts these).
    [[nodiscard]] MCP_LOADTEST_DECL std::size_t message_bytes() const noexcept;
    /// Some session reached the size bound and dropped messages.
    [[nodiscard]] MCP_LOADTEST_DECL bool truncated() const noexcept;
};

/// A recording file or text that cannot be read: the message names the line and what to fix.
struct recording_error : std::runtime_error {
    using std::runtime_error::runtime_error;
    std::size_t line = 0;  ///< 1-based; 0 when not about one line
};

/// The JSON Lines text: a header line, then per session its line and its messages in time order.
/// A message that is one line of JSON is written as itself under "message" (readable, and
/// byte-exact: the reader takes its bytes back verbatim); anything else as a string under "raw".
[[nodiscard]] MCP_LOADTEST_DECL std::string to_jsonl(const recording& r);

/// Reads to_jsonl()'s text (any version up to recording_format_version). Throws recording_error.
[[nodiscard]] MCP_LOADTEST_DECL recording read_recording(std::string_view jsonl);

/// Writes to_jsonl() to `path` atomically (a temporary file renamed over it); creates the
/// directory. Throws std::runtime_error naming the path when it cannot.
MCP_LOADTEST_DECL void write_recording(const recording& r, const std::filesystem::path& path);

/// Reads a file written by write_recording(). Throws recording_error naming the path and line.
[[nodiscard]] MCP_LOADTEST_DECL recording read_recording_file(const std::filesystem::path& path);

/// A recording of one session built from JSON-RPC messages captured by other means (a proxy, a
/// client's log), in the order they crossed the wire. Each element is one message's text (a
/// line of a log), or a JSON array of message objects as one text. Directions are inferred:
/// requests and notifications are the client's, except the server-to-client methods
/// (sampling/createMessage, elicitation/create, roots/list); a reply goes the other way from
/// the request with its id. Messages are 1 ms apart, so replay() keeps their order and treats
/// a reply listed before a request as received before it was sent.
/// Throws recording_error naming the element that is not a JSON-RPC message.
[[nodiscard]] MCP_LOADTEST_DECL recording import_messages(const std::vector<std::string>& messages,
                                                           std::string_view server_description = "imported");

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/replay/impl/recording.ipp>
#endif
