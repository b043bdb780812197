// Definitions of client_options.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/client_options.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL const std::vector<std::string>& supported_protocol_versions() {
    static const std::vector<std::string> v{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"};
    return v;
}

MCP_LOADTEST_DECL const std::vector<std::string>& supported_modern_versions() {
    static const std::vector<std::string> v{"2026-07-28"};
    return v;
}

MCP_LOADTEST_DECL rpc_error::rpc_error(std::int64_t code, const std::string& message, json data)
    : std::runtime_error(message), code_(code), data_(std::move(data)) {}

}  // namespace mcp_loadtest
