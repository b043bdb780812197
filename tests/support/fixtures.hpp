// Locating the bundled fixture servers (fixtures/*.py).
#pragma once

#include <mcp_loadtest/server.hpp>

#include <string>
#include <vector>

namespace mlt_test {

inline const std::string fixtures_dir = MCP_LOADTEST_TEST_FIXTURES;
inline const std::string python = MCP_LOADTEST_TEST_PYTHON;

/// `python3 fixtures/<script> <flags...>`. Build it in its own statement, not
/// inside a co_await expression (GCC 12 rejects initializer lists there).
inline mcp_loadtest::stdio_server fixture(const std::string& script, std::vector<std::string> flags = {}) {
    mcp_loadtest::stdio_server s;
    s.command = python;
    s.args.push_back(fixtures_dir + "/" + script);
    for (auto& f : flags) s.args.push_back(std::move(f));
    return s;
}

}  // namespace mlt_test
