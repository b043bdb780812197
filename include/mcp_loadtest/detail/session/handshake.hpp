// The opening of a session and the protocol eras: the legacy initialize
// handshake, the modern server/discover probe, era detection with its
// per-server cache, the startup budget they share, and the fallback from
// Streamable HTTP to legacy HTTP+SSE. The public entry points are
// session::initialize(), discover(), handshake() and connect() (session.hpp).
//
// Coroutines here take references only (trivially copyable, GCC 12): the
// session handle that calls them owns the core for the whole opening.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/client_options.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/session_info.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>

namespace mcp_loadtest::detail {

class session_core;  // detail/session/session_core.hpp

/// Which era each server spoke, keyed by transport and server description
/// (the spec asks clients to cache it per server process or origin).
struct era_cache {
    MCP_LOADTEST_DECL static std::optional<protocol_era> find(const std::string& key);
    MCP_LOADTEST_DECL static void store(const std::string& key, protocol_era era);
    MCP_LOADTEST_DECL static void clear();

private:
    MCP_LOADTEST_DECL static std::map<std::string, protocol_era>& map();
    MCP_LOADTEST_DECL static std::mutex& mutex();
};

/// handshake() ended a stdio server by probing it (it died on server/discover):
/// connect() starts a fresh process for the legacy handshake.
struct restart_needed {};

/// The opening's time: startup_timeout bounds all of it (the era probe, a
/// restart, a fallback, initialize), not each step anew.
struct opening_budget {
    using clock = std::chrono::steady_clock;
    clock::time_point deadline;
    std::chrono::milliseconds total{0};
    std::string spent_on;  // what used part of it before initialize, for messages

    MCP_LOADTEST_DECL static opening_budget starting_now(std::chrono::milliseconds startup_timeout);
    /// What is left, at least 1 ms (a call timeout of 0 would mean "the default").
    [[nodiscard]] MCP_LOADTEST_DECL std::chrono::milliseconds left() const;
};

/// The capabilities offered in initialize and the modern _meta: what the
/// options' handlers and roots can answer, plus extra_capabilities.
MCP_LOADTEST_DECL json declared_capabilities(const client_options& o);

/// The server's identity from a DiscoverResult (serverInfo in _meta, or at the top level).
MCP_LOADTEST_DECL server_identity identity_from_discover(const json& result, const std::string& version);

/// What the server/discover probe found.
struct modern_probe {
    bool modern = false;
    bool restart = false;  // the probe ended the (stdio) server: start a fresh one
    server_identity identity;
};

/// For a failed opening's message: the lines that were not JSON-RPC the server
/// wrote before it failed (a banner or a log on stdout), or empty.
MCP_LOADTEST_DECL std::string stdout_noise_note(const session_core& c);

/// The legacy opening: initialize, then notifications/initialized.
MCP_LOADTEST_DECL asio::awaitable<server_identity> initialize_within(session_core& c, opening_budget& budget);

// Modern opening. With `fall_back`, answers that do not identify a modern
// server return {modern = false} (the caller goes legacy); without it they
// throw. Falling back, the probe takes at most half the budget, so
// initialize keeps the other half.
MCP_LOADTEST_DECL asio::awaitable<modern_probe> probe_modern(session_core& c, bool fall_back, opening_budget& budget);

/// Opens in the era client_options::era asks for (see session::handshake()).
MCP_LOADTEST_DECL asio::awaitable<server_identity> handshake_within(session_core& c, bool may_restart, opening_budget& budget);

// ---- connect(): what an opening needs to start over ----------------------

struct session_job {
    any_server server;
    client_options options;
    std::optional<opening_budget> budget;  // set when this job continues an opening (a fallback)
};

// The spec's last HTTP fallback: a legacy HTTP+SSE server answers the
// Streamable HTTP POSTs with 400, 404 or 405; GET the same URL for its endpoint.
MCP_LOADTEST_DECL std::shared_ptr<session_job> sse_fallback(const session_job& job, const connect_error& failure);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/session/impl/handshake.ipp>
#endif
