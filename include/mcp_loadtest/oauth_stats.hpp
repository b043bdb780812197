// What an oauth_client did to keep its tokens valid: a plain struct, apart from auth.hpp so
// that a load report can carry it without compiling OAuth.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace mcp_loadtest {

/// What the client did to keep its tokens valid (one oauth_client, all its sessions).
struct oauth_stats {
    std::uint64_t authorizations = 0;    ///< full flows: discovery, identity, grant
    std::uint64_t refreshes = 0;         ///< refresh_token grants, and client-credentials renewals
    std::uint64_t challenges = 0;        ///< 401s answered (the request was sent again with a token)
    std::uint64_t step_ups = 0;          ///< 403 insufficient_scope answered with more scopes
    std::uint64_t failures = 0;          ///< flows that ended without a token
    std::uint64_t requests = 0;          ///< HTTP requests to metadata, registration, authorization and token endpoints
    std::chrono::nanoseconds time_getting_tokens{0};  ///< summed over flows and refreshes (never inside a call's latency)
    std::chrono::nanoseconds slowest{0};              ///< the slowest single flow or refresh
    std::string token_endpoint;  ///< the last token endpoint used (no credentials), "" before any
};

class oauth_client;  // <mcp_loadtest/auth.hpp>

namespace detail {
/// How a load report reads an oauth_client's counters knowing only its declaration: auth.hpp
/// registers the reader (a program that never includes it has no client to read).
using oauth_stats_reader = oauth_stats (*)(const oauth_client&);
MCP_LOADTEST_DECL void set_oauth_stats_reader(oauth_stats_reader reader) noexcept;
[[nodiscard]] MCP_LOADTEST_DECL oauth_stats_reader get_oauth_stats_reader() noexcept;
}  // namespace detail

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/oauth_stats.ipp>
#endif
