// Compile-time subject: one MCP_LOADTEST_CASE (connect, call_tool, close).
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

MCP_LOADTEST_CASE("one call") {
    mlt::stdio_server server{"python3", {"echo_server.py"}};
    auto session = co_await mlt::connect(server);
    auto reply = co_await session.call_tool("echo", mlt::args("message", "hello"), {.timeout = 5s});
    MCP_CHECK_OK(reply);
    co_await session.close();
}
