// Every JSON-RPC message this client writes, as text: requests, notifications,
// replies to server requests. The request hot path never builds a JSON DOM;
// envelopes are appended to a reused buffer (the scanning half is json_scan.hpp).
// Each line ends with '\n', the stdio framing; other transports strip it.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/wire/json_chars.hpp>
#include <mcp_loadtest/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

/// How every request line starts: its id follows (refill_tool_call rewrites it there).
inline constexpr std::string_view request_head = R"({"jsonrpc":"2.0","id":)";

/// 10^n for n = 0..19.
inline constexpr struct pow10_table_t {
    std::uint64_t value[20]{};
    constexpr pow10_table_t() {
        std::uint64_t v = 1;
        for (auto& p : value) p = v, v *= 10;
    }
    constexpr std::uint64_t operator[](std::size_t n) const noexcept { return value[n]; }
} pow10_table{};

/// "00" to "99": decimal digits two at a time.
inline constexpr struct digit_pairs_t {
    char text[200]{};
    constexpr digit_pairs_t() {
        for (int i = 0; i < 100; ++i) text[2 * i] = static_cast<char>('0' + i / 10), text[2 * i + 1] = static_cast<char>('0' + i % 10);
    }
} digit_pairs{};

/// Writes v in decimal so that its digits end at `end`; returns how many. Backwards,
/// two digits per constant division: the ids of the request path are short.
MCP_LOADTEST_ALWAYS_INLINE std::size_t write_uint_backwards(char* end, std::uint64_t v) noexcept {
    char* p = end;
    while (v >= 100) {
        const auto pair = static_cast<std::size_t>(v % 100);
        v /= 100;
        p -= 2;
        std::memcpy(p, digit_pairs.text + 2 * pair, 2);
    }
    if (v >= 10) {
        p -= 2;
        std::memcpy(p, digit_pairs.text + 2 * v, 2);
    } else {
        *--p = static_cast<char>('0' + v);
    }
    return static_cast<std::size_t>(end - p);
}

/// Appends `s` as a JSON string literal (with quotes), escaping as RFC 8259 requires.
MCP_LOADTEST_DECL void append_json_string(std::string& out, std::string_view s);

MCP_LOADTEST_DECL void append_uint(std::string& out, std::uint64_t v);

/// Writes `{"jsonrpc":"2.0","id":<id>,"method":"<method>"` (object left open).
MCP_LOADTEST_DECL void begin_request(std::string& out, std::uint64_t id, std::string_view method);

// ---- requests ------------------------------------------------------------

/// What a request line needs to know of the session's protocol era.
struct request_meta {
    /// Modern era: the members of every request's params._meta, without
    /// braces; null when the session speaks the legacy era.
    const std::string* modern_members = nullptr;
    bool progress = false;  ///< ask for notifications/progress (the token is the id)
};

/// A tools/call line with its arguments already serialized (written once, never
/// parsed), written over whatever `line` holds (a reused buffer is overwritten,
/// not cleared first). Returns where the params object's members start (see
/// session_core::request_line::params_members_at).
MCP_LOADTEST_DECL std::uint32_t write_tool_call(std::string& line, std::uint64_t id, std::string_view name,
                                                std::string_view arguments_json, request_meta meta);

/// Writes `id` over the id of `line`, a request line written with `old_id` by the
/// functions here (its digits follow request_head), when `id` is larger and has as
/// many digits; false, with the line unchanged, when not.
MCP_LOADTEST_DECL bool rewrite_request_id(std::string& line, std::uint64_t old_id, std::uint64_t id) noexcept;

/// Any other request. Modern era: params._meta carries `modern_meta` (the
/// protocol version, capabilities and client info), the caller's own _meta
/// members kept. Returns where the params object's members start (0: unknown).
MCP_LOADTEST_DECL std::uint32_t write_request(std::string& line, std::uint64_t id, std::string_view method, const json& params,
                                              const json* modern_meta, bool progress);

/// Any other request with its params object already serialized (`params_object`: a JSON
/// object without a "_meta" member), written over `line`. The era's _meta and the progress
/// token are spliced in as the first member. Returns where the params object's members start
/// (0 in the legacy era without progress, as write_request).
MCP_LOADTEST_DECL std::uint32_t write_request_text(std::string& line, std::uint64_t id, std::string_view method,
                                                   std::string_view params_object, request_meta meta);

/// A modern request retried after an InputRequiredResult, under a new id:
/// the answers (inputResponses), the server's requestState echoed, then the
/// first attempt's params members (`retry_tail`, from params_members_at on).
MCP_LOADTEST_DECL void write_input_retry(std::string& line, std::uint64_t id, std::string_view method,
                                         const json& input_responses, const std::string* request_state,
                                         std::string_view retry_tail);

// ---- notifications -------------------------------------------------------

/// A notification; `params_json` is written as it is (empty: no params).
MCP_LOADTEST_DECL std::string write_notification(std::string_view method, std::string_view params_json);

/// The params of notifications/cancelled.
MCP_LOADTEST_DECL std::string cancelled_params(std::uint64_t request_id, std::string_view reason);

// ---- replies to server→client requests ----------------------------------

/// `{"jsonrpc":"2.0","id":<id>` with the server's id token as it was sent.
MCP_LOADTEST_DECL void begin_response(std::string& reply, std::string_view id_token);

MCP_LOADTEST_DECL void end_result_response(std::string& reply, const json& result);

MCP_LOADTEST_DECL void end_error_response(std::string& reply, std::int64_t code, std::string_view message);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/wire/impl/jsonrpc_writer.ipp>
#endif
