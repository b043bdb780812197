// One server description per session: a stdio server's stderr_path may hold
// "{session}", which becomes the session's index (run directories give each
// spawned server its own stderr-<session>.log).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/any_server.hpp>

#include <cstddef>
#include <string>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL any_server server_for_session(const any_server& server, std::size_t session);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/session/impl/session_stderr.ipp>
#endif
