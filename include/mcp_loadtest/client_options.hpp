// How the library presents itself as an MCP client, and per-call options.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/schema_violation.hpp>
#include <mcp_loadtest/version.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

using namespace std::chrono_literals;

/// Legacy-era protocol revisions this client speaks, oldest first.
MCP_LOADTEST_DECL const std::vector<std::string>& supported_protocol_versions();

/// Modern-era protocol revisions this client speaks (stateless, per-request _meta).
MCP_LOADTEST_DECL const std::vector<std::string>& supported_modern_versions();

/// True for a revision of the modern (stateless) era.
inline bool is_modern_version(std::string_view version) { return !version.empty() && version >= "2026-07-28"; }

/// Which protocol era a session speaks.
enum class era_selection {
    automatic,  ///< detect per the spec's backward-compatibility rules; cached per server
    legacy,     ///< initialize handshake (2024-11-05 .. 2025-11-25)
    modern,     ///< stateless requests with _meta (2026-07-28)
};

/// Throw from a request handler to answer the server with a JSON-RPC error.
class rpc_error : public std::runtime_error {
public:
    MCP_LOADTEST_DECL rpc_error(std::int64_t code, const std::string& message, json data = nullptr);
    [[nodiscard]] std::int64_t code() const noexcept { return code_; }
    [[nodiscard]] const json& data() const noexcept { return data_; }

private:
    std::int64_t code_;
    json data_;
};

/// Answers one server→client request (e.g. "sampling/createMessage"):
/// returns the result, or throws rpc_error.
using request_handler = std::function<json(const json& params)>;

/// A notification the server sent (progress, log message, list changed...).
struct notification {
    std::string method{};
    json params{};
    std::chrono::steady_clock::time_point received_at{};
};

/// One root offered to the server through roots/list.
struct root {
    std::string uri{};   ///< file:// URI
    std::string name{};
};

struct client_options {
    /// Which era to speak. `automatic` probes with server/discover (and on
    /// HTTP falls back to legacy Streamable HTTP, then HTTP+SSE) and caches
    /// the answer per server for the life of the test process.
    era_selection era = era_selection::automatic;
    /// Pin an exact version: a legacy one is offered in initialize, a modern
    /// one is sent in every request's _meta (and selects that era). Empty: the
    /// newest supported version of the era in use.
    std::string protocol_version{};
    /// Versions accepted when the server answers with another one.
    std::vector<std::string> accepted_versions = supported_protocol_versions();
    std::string client_name = "mcp-loadtest";
    std::string client_version = MCP_LOADTEST_VERSION_STRING;

    /// Declares the roots capability and answers roots/list with these
    /// (set `declare_roots` to declare it with an empty list).
    std::vector<root> roots{};
    bool declare_roots = false;
    /// Answers for server→client requests, by method. A request with no
    /// handler is answered with a JSON-RPC error (-32601), never left waiting.
    /// A handler for "sampling/createMessage" or "elicitation/create" declares
    /// that capability in initialize.
    std::map<std::string, request_handler> request_handlers{};
    /// Extra capabilities merged into the declared ones (initialize, or every
    /// modern request's _meta).
    json extra_capabilities = json::object();
    /// Modern era: how long the server/discover probe may take before the
    /// server is judged legacy (the spec: "no response within a reasonable timeout").
    /// Automatic detection also caps it at half the server description's
    /// startup_timeout, which bounds the whole opening (probe, then initialize).
    std::chrono::milliseconds discover_timeout = 3s;
    /// Modern era: most InputRequiredResult rounds one call may take before it
    /// fails (a server may keep asking forever).
    std::uint32_t max_input_rounds = 16;
    /// Modern era: _meta logLevel on every request (opt-in to notifications/message); empty: none.
    std::string log_level{};

    /// Called for every notification the server sends.
    std::function<void(const notification&)> on_notification{};
    /// How many notifications session::notifications() keeps (oldest dropped).
    std::size_t notification_history = 1000;

    /// Default per-call timeout when call_options::timeout is not set.
    std::chrono::milliseconds default_timeout = 30s;
    /// Session-wide deadline from connect: calls still running then end as
    /// `timeout` and later calls fail at once. Zero: none.
    std::chrono::milliseconds session_deadline{0};
    /// Strict validation (off when empty; cheap when off): tool arguments
    /// against the tool's inputSchema before sending, results against its
    /// outputSchema, every message against the negotiated revision's MCP
    /// schema. Set it with mcp_loadtest::strict_mode() from <mcp_loadtest/strict.hpp>.
    strict_validation strict{};
    /// Called when a call is declared `deadlock`, with the server's pid: its
    /// text is added to the call's message. Set it to mcp_loadtest::where_threads_wait
    /// (<mcp_loadtest/hang_evidence.hpp>: each thread's state, wchan and system
    /// call, read from /proc in about a millisecond). Null: nothing is read.
    std::string (*describe_deadlocked_server)(int pid) = nullptr;
    /// Record every message in both directions, byte-exact, with its time: session::recorded()
    /// returns them, replay() plays them back (docs/replay.md). Off: no cost.
    bool record = false;
    /// The recording keeps at most this many bytes of messages; later ones are counted as dropped.
    std::size_t max_recording_bytes = std::size_t{256} << 20;
};

/// Options for one request.
struct call_options {
    /// No reply within this long ends the call as `hang` (0: the session default).
    std::chrono::milliseconds timeout{0};
    /// After the timeout, keep waiting this long: a reply in that window is a
    /// `hang` that carries the reply; none at all is a `deadlock`.
    std::chrono::milliseconds grace{0};
    /// Send notifications/cancelled to the server when the call gives up.
    bool cancel_on_timeout = true;
    /// Ask for progress notifications (adds _meta.progressToken = request id).
    bool progress = false;
};
// Written inline inside co_await: must stay trivially copyable (docs/index.md#compiler-notes).
static_assert(std::is_trivially_copyable_v<call_options>);

/// Options for session::send_raw.
struct raw_options {
    /// A message that expects a reply (a request, or anything not a
    /// notification or response: invalid JSON gets -32700) that has none
    /// within this long ends as `hang`.
    std::chrono::milliseconds timeout{5000};
    /// A message that expects no reply (a notification, a response) is watched
    /// this long: anything answering it is a protocol violation.
    std::chrono::milliseconds quiet{250};
};
static_assert(std::is_trivially_copyable_v<raw_options>);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/client_options.ipp>
#endif
