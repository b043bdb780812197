// Definitions of server.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/server.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::string stdio_server::command_line() const {
    std::string s = command;
    for (const auto& a : args) {
        s += ' ';
        if (a.find_first_of(" \t\"'") != std::string::npos) s += '"' + a + '"';
        else s += a;
    }
    return s;
}

}  // namespace mcp_loadtest
