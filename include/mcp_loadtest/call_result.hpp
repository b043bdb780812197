// The result of one request: its outcome, duration and (lazily parsed) payload.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/outcome.hpp>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mcp_loadtest {

/// Thrown when a caller asks a call_result for a payload it does not have, or
/// one that cannot be read (not valid JSON, or not the shape asked for). The
/// accessors never let a JSON parser's own exception escape.
class result_unavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// What one request ended with. A plain value: copy it, store it, compare it.
///
/// The raw reply line is kept and only parsed when `result()`, `error()` or
/// `text()` is called, so recording millions of results stays cheap.
struct call_result {
    mcp_loadtest::outcome outcome = outcome::cancelled;
    /// From the request's send to its outcome, less waited_for_token.
    std::chrono::nanoseconds duration{0};
    /// HTTP with OAuth: the time the request was held back after a 401 (or a 403 asking for
    /// more scopes) until a token came. Getting tokens is its own step (oauth_client::stats(),
    /// load_report::authorization), never inside a call's latency.
    std::chrono::nanoseconds waited_for_token{0};
    std::uint64_t request_id = 0;
    std::string method;          ///< e.g. "tools/call"
    std::string tool;            ///< tool, resource or prompt name, when there is one
    std::int64_t error_code = 0; ///< JSON-RPC error code for server_error/protocol_error
    std::string message;         ///< what happened and what to do next; empty for `ok`
    std::uint32_t progress_notifications = 0;  ///< notifications/progress seen for this call
    /// Progress rules broken while it was in flight (protocol_violation::kind::progress_*);
    /// one after its result is recorded by the session only (session::protocol_violations()).
    std::uint32_t progress_violations = 0;
    bool progress_requested = false;  ///< it asked for progress (call_options::progress)
    std::chrono::nanoseconds first_progress{0};  ///< from the send to its first notifications/progress (0: none)
    std::uint32_t input_rounds = 0;  ///< modern era: InputRequiredResult rounds answered before the outcome
    std::uint16_t http_status = 0;   ///< HTTP transports: the status of a failed exchange (else 0)
    std::uint16_t redirects = 0;     ///< HTTP transports: redirects followed on the way to the outcome
    std::string raw;             ///< the reply line as received (empty if none arrived)
    std::uint32_t payload_begin = 0;  ///< offset of the "result"/"error" value in raw
    std::uint32_t payload_size = 0;

    [[nodiscard]] bool ok() const noexcept { return outcome == outcome::ok; }
    /// A reply arrived (success, tool error or JSON-RPC error).
    [[nodiscard]] bool answered() const noexcept { return !raw.empty(); }
    explicit operator bool() const noexcept { return ok(); }

    /// The raw text of the "result" (or "error") member.
    [[nodiscard]] std::string_view payload_text() const noexcept {
        return std::string_view(raw).substr(payload_begin, payload_size);
    }

    /// The parsed "result" member. Throws result_unavailable when the reply
    /// was an error or never arrived, or its result cannot be parsed.
    [[nodiscard]] MCP_LOADTEST_DECL json result() const;

    /// The parsed JSON-RPC "error" member, or null when there is none.
    /// Throws result_unavailable when it cannot be parsed.
    [[nodiscard]] MCP_LOADTEST_DECL json error() const;

    /// The result's `structuredContent` (tools/call), or null when it has none.
    /// Throws as result() does.
    [[nodiscard]] MCP_LOADTEST_DECL json structured() const;

    /// Concatenated `text` items of a tools/call or prompts/get result's content.
    /// Throws as result() does, and when a text item's "text" is not a string.
    [[nodiscard]] MCP_LOADTEST_DECL std::string text() const;

    /// "tools/call echo (id 7)" and the like, for messages.
    [[nodiscard]] MCP_LOADTEST_DECL std::string describe_call() const;

    /// One line: outcome, duration, and the detail message.
    [[nodiscard]] MCP_LOADTEST_DECL std::string describe() const;

private:
    /// The payload parsed; a parser's exception becomes result_unavailable.
    [[nodiscard]] MCP_LOADTEST_DECL json parse_payload(const char* member) const;
};

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/call_result.ipp>
#endif
