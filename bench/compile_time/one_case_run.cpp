// Compile-time subject: one MCP_LOADTEST_CASE with run.hpp, detectors.hpp and one run().
#include <doctest/doctest.h>
#include <mcp_loadtest/detectors.hpp>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/run.hpp>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

MCP_LOADTEST_CASE("one call, then a load run") {
    mlt::stdio_server server{"python3", {"echo_server.py"}};
    auto session = co_await mlt::connect(server);
    auto reply = co_await session.call_tool("echo", mlt::args("message", "hello"), {.timeout = 5s});
    MCP_CHECK_OK(reply);
    co_await session.close();

    const auto calls = mlt::mix::single("echo", mlt::args("message", "load"));
    const mlt::workload load = mlt::closed_load{.users = 4, .duration = 1s};
    auto report = co_await mlt::run(server, load, calls);
    MCP_CHECK_PASSED(report);
}
