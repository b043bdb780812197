// Definitions of network_server.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/network_server.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL bool http_header::is_secret() const {
    std::string n = name;
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return secret || n == "authorization" || n == "cookie" || n == "proxy-authorization" ||
           n.find("key") != std::string::npos || n.find("token") != std::string::npos ||
           n.find("secret") != std::string::npos;
}

}  // namespace mcp_loadtest
