// Definitions of detail/session/session_stderr.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/session/session_stderr.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL any_server server_for_session(const any_server& server, std::size_t session) {
    const auto* stdio = std::get_if<stdio_server>(&server);
    if (!stdio) return server;
    std::string path = stdio->stderr_path.string();
    const auto at = path.find("{session}");
    if (at == std::string::npos) return server;
    stdio_server copy = *stdio;
    copy.stderr_path = path.replace(at, 9, std::to_string(session));
    return copy;
}

}  // namespace mcp_loadtest::detail
