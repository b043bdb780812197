// Definitions of auth.hpp (header-only: included by it; separate compilation: compiled once
// by impl/src.hpp).
#pragma once

#include <mcp_loadtest/auth.hpp>
#include <mcp_loadtest/detail/auth/oauth_flow.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL oauth_client::oauth_client(oauth_options options)
    : options_(std::move(options)), state_(std::make_unique<detail::oauth_state>()) {}

MCP_LOADTEST_DECL oauth_client::~oauth_client() = default;

MCP_LOADTEST_DECL oauth_stats oauth_client::stats() const {
    std::lock_guard lock(state_->mutex);
    return state_->stats;
}

MCP_LOADTEST_DECL oauth_stats detail::read_oauth_stats(const oauth_client& client) { return client.stats(); }

}  // namespace mcp_loadtest
