// Locating the bundled fixture servers (fixtures/*.py, and the C++ one of fixtures/native/).
#pragma once

#include <mcp_loadtest/server.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace mlt_test {

inline const std::string fixtures_dir = MCP_LOADTEST_TEST_FIXTURES;
inline const std::string python = MCP_LOADTEST_TEST_PYTHON;

/// `python3 -S fixtures/<script> <flags...>`. Build it in its own statement, not
/// inside a co_await expression (GCC 12 rejects initializer lists there).
/// -S: the fixtures use the standard library only, and skipping `site` (and the .pth
/// files it runs) halves a start's CPU time; the suite starts hundreds of them.
inline mcp_loadtest::stdio_server fixture(const std::string& script, std::vector<std::string> flags = {}) {
    mcp_loadtest::stdio_server s;
    s.command = python;
    s.args.push_back("-S");
    s.args.push_back(fixtures_dir + "/" + script);
    for (auto& f : flags) s.args.push_back(std::move(f));
    return s;
}

#ifdef MCP_LOADTEST_NATIVE_FIXTURE
/// `fixtures/native/mcp_fixture_server <args...>`: the C++ fixture server (no Python;
/// its flags are listed at the top of its source).
inline mcp_loadtest::stdio_server native_fixture(std::vector<std::string> args = {}) {
    mcp_loadtest::stdio_server s;
    s.command = MCP_LOADTEST_NATIVE_FIXTURE;
    s.args = std::move(args);
    return s;
}
#endif

#ifdef MCP_LOADTEST_EVERYTHING_JS
/// True when `npm ci --prefix tests/interop` installed server-everything; use
/// as `* doctest::skip(!mlt_test::have_everything())` on a case that needs it.
inline bool have_everything() {
    return std::filesystem::exists(MCP_LOADTEST_EVERYTHING_JS) && std::string(MCP_LOADTEST_NODE).size() > 0;
}

/// @modelcontextprotocol/server-everything over stdio (its tools: echo, get-sum,
/// trigger-long-running-operation, ...), never fetching anything remote.
inline mcp_loadtest::stdio_server everything() {
    mcp_loadtest::stdio_server s;
    s.command = MCP_LOADTEST_NODE;
    s.args = {MCP_LOADTEST_EVERYTHING_JS, "stdio"};
    s.env["GZIP_ALLOWED_DOMAINS"] = "127.0.0.1";
    s.stderr_to = mcp_loadtest::stderr_mode::capture;  // it logs its start-up banner there
    return s;
}
#endif

}  // namespace mlt_test
