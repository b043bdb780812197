// One server description per session: a stdio server's stderr_path may hold
// "{session}", which becomes the session's index (run directories give each
// spawned server its own stderr-<session>.log).
#pragma once

#include <mcp_loadtest/any_server.hpp>

#include <cstddef>
#include <string>

namespace mcp_loadtest::detail {

inline any_server server_for_session(const any_server& server, std::size_t session) {
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
